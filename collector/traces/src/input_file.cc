// SPDX-License-Identifier: MIT
#include "input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace stallwatch::collector {

namespace {
constexpr std::size_t kDiskChunk = 1u << 20;
}  // namespace

struct InputFile::Inflater {
  z_stream stream{};
  std::vector<unsigned char> in;
  bool done = false;
  bool truncated = false;
  bool initialized = false;
  ~Inflater() {
    if (initialized) inflateEnd(&stream);
  }
};

InputFile::InputFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<InputFile> InputFile::open(const std::string& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    error = "cannot read " + path + ": is a directory";
    return nullptr;
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::unique_ptr<InputFile> file(new InputFile(path, fd));
  unsigned char magic[2] = {0, 0};
  const ssize_t got = ::pread(fd, magic, sizeof magic, 0);
  if (got < 0) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    file->compressed_ = true;
    file->inflater_ = std::make_unique<Inflater>();
    Inflater& z = *file->inflater_;
    z.in.resize(kDiskChunk);
    // 16 + MAX_WBITS: gzip wrapper only; concatenated members are handled in read().
    if (inflateInit2(&z.stream, 16 + MAX_WBITS) != Z_OK) {
      error = "cannot read " + path + ": zlib initialization failed";
      return nullptr;
    }
    z.initialized = true;
  }
  return file;
}

std::ptrdiff_t InputFile::read_raw(char* dst, std::size_t capacity) {
  for (;;) {
    const ssize_t n = ::read(fd_, dst, capacity);
    if (n >= 0) {
      disk_bytes_ += static_cast<std::uint64_t>(n);
      return n;
    }
    if (errno == EINTR) continue;
    error_ = "read error in " + path_ + ": " + std::strerror(errno);
    return -1;
  }
}

std::ptrdiff_t InputFile::read(char* dst, std::size_t capacity) {
  if (!compressed_) return read_raw(dst, capacity);
  Inflater& z = *inflater_;
  if (z.done && z.truncated) {
    error_ = "truncated gzip data in " + path_;
    return -1;
  }
  z.stream.next_out = reinterpret_cast<Bytef*>(dst);
  z.stream.avail_out = static_cast<uInt>(capacity);
  while (z.stream.avail_out > 0 && !z.done) {
    if (z.stream.avail_in == 0) {
      const std::ptrdiff_t n = read_raw(reinterpret_cast<char*>(z.in.data()), z.in.size());
      if (n < 0) return -1;
      if (n == 0) {
        // End of file inside a member: hand out what was inflated, then fail.
        z.done = true;
        z.truncated = true;
        break;
      }
      z.stream.next_in = z.in.data();
      z.stream.avail_in = static_cast<uInt>(n);
    }
    const int rc = inflate(&z.stream, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (pigz, appended logs).
      if (z.stream.avail_in == 0) {
        const std::ptrdiff_t n = read_raw(reinterpret_cast<char*>(z.in.data()), z.in.size());
        if (n < 0) return -1;
        if (n == 0) {
          z.done = true;
          break;
        }
        z.stream.next_in = z.in.data();
        z.stream.avail_in = static_cast<uInt>(n);
      }
      inflateReset(&z.stream);
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      error_ =
          "corrupt gzip data in " + path_ + ": " + (z.stream.msg ? z.stream.msg : "inflate failed");
      return -1;
    }
  }
  const auto produced = static_cast<std::ptrdiff_t>(capacity - z.stream.avail_out);
  if (produced == 0 && z.truncated) {
    error_ = "truncated gzip data in " + path_;
    return -1;
  }
  return produced;
}

}  // namespace stallwatch::collector
