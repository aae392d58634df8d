// SPDX-License-Identifier: MIT
#include "journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

namespace stallwatch::collector {
namespace {

constexpr std::size_t kFlushBytes = 1u << 20;
constexpr std::int64_t kLimitsEveryNs = 10'000'000'000;

void put_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_i64(std::uint8_t* p, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<std::uint8_t>(u >> (8 * i));
}

// Writes all of `data`; the bytes written before an error otherwise.
std::size_t write_all(int fd, const std::uint8_t* data, std::size_t size, int& error) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      return done;
    }
    done += static_cast<std::size_t>(n);
  }
  return done;
}

}  // namespace

JournalWriter::JournalWriter(std::string dir, std::uint64_t max_bytes, std::int64_t max_age_ns)
    : dir_(std::move(dir)),
      max_bytes_(std::max<std::uint64_t>(max_bytes, kSegmentBytes)),
      max_age_ns_(max_age_ns) {}

JournalWriter::~JournalWriter() {
  flush();
  if (fd_ >= 0) ::close(fd_);
}

std::string JournalWriter::open(std::int64_t now_ns) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return "journal " + dir_ + ": " + ec.message();
  if (auto err = start_segment(now_ns); !err.empty()) return err;
  enforce_limits(now_ns);
  return {};
}

std::string JournalWriter::start_segment(std::int64_t first_ns) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  char name[64];
  std::snprintf(name, sizeof name, "/segment-%020lld.swj", static_cast<long long>(first_ns));
  current_path_ = dir_ + name;
  const int fd = ::open(current_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return "journal " + current_path_ + ": " + std::strerror(errno);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size == 0) {
    int error = 0;
    if (write_all(fd, reinterpret_cast<const std::uint8_t*>(kJournalMagic), sizeof kJournalMagic,
                  error) != sizeof kJournalMagic) {
      ::close(fd);
      ::unlink(current_path_.c_str());  // no empty segment left behind per retry
      return "journal " + current_path_ + ": write failed: " + std::strerror(error);
    }
  }
  fd_ = fd;
  segment_bytes_ = size > 0 ? static_cast<std::uint64_t>(size) : sizeof kJournalMagic;
  return {};
}

void JournalWriter::append(std::span<const std::uint8_t> frame, std::int64_t recv_ns) {
  if (fd_ < 0) {
    ++records_unwritten_;
    return;
  }
  const std::size_t record = kJournalRecordHeader + frame.size();
  if (segment_bytes_ + record > kSegmentBytes && segment_bytes_ > sizeof kJournalMagic) {
    flush();
    if (fd_ >= 0) {
      if (auto err = start_segment(recv_ns); !err.empty()) fail(std::move(err));
      enforce_limits(recv_ns);
    }
    if (fd_ < 0) {
      ++records_unwritten_;
      return;
    }
  }
  std::uint8_t header[kJournalRecordHeader];
  put_u32(header, static_cast<std::uint32_t>(frame.size()));
  put_i64(header + 4, recv_ns);
  buffer_.insert(buffer_.end(), header, header + sizeof header);
  buffer_.insert(buffer_.end(), frame.begin(), frame.end());
  record_ends_.push_back(buffer_.size());
  segment_bytes_ += record;
  if (buffer_.size() >= kFlushBytes) flush();
}

void JournalWriter::flush() {
  if (fd_ < 0 || buffer_.empty()) return;
  int error = 0;
  const std::size_t written = write_all(fd_, buffer_.data(), buffer_.size(), error);
  bytes_written_ += written;
  const auto complete = static_cast<std::uint64_t>(
      std::upper_bound(record_ends_.begin(), record_ends_.end(), written) - record_ends_.begin());
  records_written_ += complete;
  records_unwritten_ += record_ends_.size() - complete;
  const bool failed = written < buffer_.size();
  buffer_.clear();
  record_ends_.clear();
  if (failed) fail("journal " + current_path_ + ": write failed: " + std::strerror(error));
}

void JournalWriter::maintain(std::int64_t now_ns) {
  if (fd_ < 0 && now_ns - last_retry_ns_ >= kRetryNs) {
    last_retry_ns_ = now_ns;
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (auto err = start_segment(now_ns); !err.empty()) last_error_ = std::move(err);
  }
  if (now_ns - last_limits_ns_ >= kLimitsEveryNs) enforce_limits(now_ns);
}

void JournalWriter::enforce_limits(std::int64_t now_ns) {
  last_limits_ns_ = now_ns;
  const auto segments = journal_segments(dir_);
  std::uint64_t total = 0;
  std::vector<std::uint64_t> sizes;
  std::vector<std::int64_t> written_ns;
  for (const auto& s : segments) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(s, ec);
    sizes.push_back(ec ? 0 : size);
    total += sizes.back();
    const auto mtime = std::filesystem::last_write_time(s, ec);
    written_ns.push_back(ec ? now_ns
                            : std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::file_clock::to_sys(mtime).time_since_epoch())
                                  .count());
  }
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments[i] == current_path_) break;
    const bool too_big = total > max_bytes_;
    const bool too_old = max_age_ns_ > 0 && now_ns - written_ns[i] > max_age_ns_;
    if (!too_big && !too_old) continue;
    std::error_code ec;
    std::filesystem::remove(segments[i], ec);
    total -= sizes[i];
  }
}

void JournalWriter::fail(std::string message) {
  last_error_ = std::move(message);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::vector<std::string> journal_segments(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("segment-", 0) == 0 && entry.path().extension() == ".swj") {
      out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace stallwatch::collector
