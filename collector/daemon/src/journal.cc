// SPDX-License-Identifier: MIT
#include "journal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace stallwatch::collector {
namespace {

constexpr char kMagic[8] = {'S', 'W', 'J', '1', 0, 0, 0, 0};
constexpr std::size_t kRecordHeader = 12;

void put_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_i64(std::uint8_t* p, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<std::uint8_t>(u >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= std::uint32_t{p[i]} << (8 * i);
  return v;
}
std::int64_t get_i64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= std::uint64_t{p[i]} << (8 * i);
  return static_cast<std::int64_t>(v);
}

}  // namespace

JournalWriter::JournalWriter(std::string dir, std::uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(std::max<std::uint64_t>(max_bytes, kSegmentBytes)) {}

JournalWriter::~JournalWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

std::string JournalWriter::open() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return "journal " + dir_ + ": " + ec.message();
  return start_segment(0);
}

std::string JournalWriter::start_segment(std::int64_t first_ns) {
  if (file_ != nullptr) std::fclose(file_);
  char name[64];
  std::snprintf(name, sizeof name, "/segment-%020lld.swj", static_cast<long long>(first_ns));
  current_path_ = dir_ + name;
  file_ = std::fopen(current_path_.c_str(), "ab");
  if (file_ == nullptr) {
    return "journal " + current_path_ + ": " + std::strerror(errno);
  }
  segment_bytes_ = 0;
  if (std::ftell(file_) == 0) {
    std::fwrite(kMagic, 1, sizeof kMagic, file_);
    segment_bytes_ = sizeof kMagic;
  }
  enforce_limit();
  return {};
}

void JournalWriter::append(std::span<const std::uint8_t> frame, std::int64_t recv_ns) {
  if (file_ == nullptr) return;
  if (segment_bytes_ + frame.size() + kRecordHeader > kSegmentBytes &&
      segment_bytes_ > sizeof kMagic) {
    if (auto err = start_segment(recv_ns); !err.empty()) {
      fail(std::move(err));
      return;
    }
  }
  std::uint8_t header[kRecordHeader];
  put_u32(header, static_cast<std::uint32_t>(frame.size()));
  put_i64(header + 4, recv_ns);
  if (std::fwrite(header, 1, sizeof header, file_) != sizeof header ||
      std::fwrite(frame.data(), 1, frame.size(), file_) != frame.size()) {
    fail("journal " + current_path_ + ": write failed: " + std::strerror(errno));
    return;
  }
  segment_bytes_ += sizeof header + frame.size();
  bytes_written_ += sizeof header + frame.size();
}

void JournalWriter::flush() {
  if (file_ != nullptr && std::fflush(file_) != 0) {
    fail("journal " + current_path_ + ": flush failed: " + std::strerror(errno));
  }
}

void JournalWriter::enforce_limit() {
  auto segments = journal_segments(dir_);
  std::uint64_t total = 0;
  std::vector<std::uint64_t> sizes;
  for (const auto& s : segments) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(s, ec);
    sizes.push_back(ec ? 0 : size);
    total += sizes.back();
  }
  for (std::size_t i = 0; i < segments.size() && total > max_bytes_; ++i) {
    if (segments[i] == current_path_) break;
    std::error_code ec;
    std::filesystem::remove(segments[i], ec);
    total -= sizes[i];
  }
}

void JournalWriter::fail(std::string message) {
  last_error_ = std::move(message);
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
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

std::string read_journal_segment(
    const std::string& path,
    const std::function<void(std::span<const std::uint8_t>, std::int64_t)>& visit) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return path + ": " + std::strerror(errno);
  char magic[sizeof kMagic];
  if (std::fread(magic, 1, sizeof magic, f) != sizeof magic ||
      std::memcmp(magic, kMagic, sizeof magic) != 0) {
    std::fclose(f);
    return path + ": not a stallwatch journal segment (bad magic)";
  }
  std::vector<std::uint8_t> frame;
  std::uint8_t header[kRecordHeader];
  while (std::fread(header, 1, sizeof header, f) == sizeof header) {
    const std::uint32_t len = get_u32(header);
    const std::int64_t recv_ns = get_i64(header + 4);
    if (len > (64u << 20)) break;
    frame.resize(len);
    if (std::fread(frame.data(), 1, len, f) != len) break;
    visit(frame, recv_ns);
  }
  std::fclose(f);
  return {};
}

}  // namespace stallwatch::collector
