// SPDX-License-Identifier: MIT
#include "input_file.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

namespace stallwatch::collector {

namespace {
// Compressed bytes read at a time: large enough for few syscalls, small next
// to the inflated chunks the readers ask for.
constexpr std::size_t kDiskChunk = 128u << 10;
}  // namespace

// ISA-L's igzip streaming inflate (gzip wrapper and CRC-32 checked by the
// library): about three times zlib's speed on trace JSON (bench/inflate), with
// the same memory: one 32 KiB history window in the state.
struct InputFile::Inflater {
  inflate_state stream{};
  std::vector<unsigned char> in;
  bool done = false;
  bool truncated = false;
  std::string corrupt;  // why inflating stopped, reported after the bytes before it
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
    isal_inflate_init(&z.stream);
    // The gzip wrapper only; concatenated members are handled in read().
    z.stream.crc_flag = ISAL_GZIP;
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

namespace {

const char* inflate_problem(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "not a gzip member";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";
    case ISAL_NEED_DICT:
      return "needs a preset dictionary";
    default:
      return "inflate failed";
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) void zero_upper_halves() {
  _mm256_zeroupper();
}
#endif

// ISA-L's inflate, hand-written AVX2 / AVX-512 assembly, returns with the
// upper halves of the vector registers still in use. Until a VZEROUPPER,
// every SSE instruction after it pays for them: the trace scanners, built
// for baseline x86-64, ran at half speed (perf on `analyze` of a Kineto
// trace, Ice Lake: JsonObjectScanner::scan_value 11 % of the samples, 5 %
// with this).
void after_inflate() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx) zero_upper_halves();
#endif
}

}  // namespace

std::ptrdiff_t InputFile::read(char* dst, std::size_t capacity) {
  if (!compressed_) return read_raw(dst, capacity);
  Inflater& z = *inflater_;
  if (z.done && (z.truncated || !z.corrupt.empty())) {
    error_ = z.truncated ? "truncated gzip data in " + path_ : z.corrupt;
    return -1;
  }
  z.stream.next_out = reinterpret_cast<std::uint8_t*>(dst);
  z.stream.avail_out = static_cast<std::uint32_t>(
      std::min<std::size_t>(capacity, std::numeric_limits<std::uint32_t>::max()));
  const std::uint32_t offered = z.stream.avail_out;
  while (z.stream.avail_out > 0 && !z.done) {
    const std::uint32_t in_before = z.stream.avail_in;
    const std::uint32_t out_before = z.stream.avail_out;
    const int rc = isal_inflate(&z.stream);
    const bool stuck = in_before > 0 && z.stream.avail_in == in_before &&
                       z.stream.avail_out == out_before &&
                       z.stream.block_state != ISAL_BLOCK_FINISH;
    if (rc < 0 || rc == ISAL_NEED_DICT || stuck) {
      // Hand out what was inflated before the damage, then fail.
      z.corrupt = std::string("corrupt gzip data in ") + path_ + ": " + inflate_problem(rc);
      z.done = true;
      break;
    }
    const bool member_end = z.stream.block_state == ISAL_BLOCK_FINISH;
    if (!member_end && z.stream.avail_out == 0) break;
    if (z.stream.avail_in == 0) {
      // The member needs more input, or it ended and another may follow
      // (pigz, appended logs).
      const std::ptrdiff_t n = read_raw(reinterpret_cast<char*>(z.in.data()), z.in.size());
      if (n < 0) return -1;
      if (n == 0) {
        // End of file between members is the end; inside one, hand out what
        // was inflated, then fail.
        z.done = true;
        z.truncated = !member_end;
        break;
      }
      z.stream.next_in = z.in.data();
      z.stream.avail_in = static_cast<std::uint32_t>(n);
    }
    if (member_end) {
      isal_inflate_reset(&z.stream);
      z.stream.crc_flag = ISAL_GZIP;
    }
  }
  after_inflate();
  const auto produced = static_cast<std::ptrdiff_t>(offered - z.stream.avail_out);
  if (produced == 0 && (z.truncated || !z.corrupt.empty())) {
    error_ = z.truncated ? "truncated gzip data in " + path_ : z.corrupt;
    return -1;
  }
  return produced;
}

}  // namespace stallwatch::collector
