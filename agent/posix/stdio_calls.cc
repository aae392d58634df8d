// SPDX-License-Identifier: MIT
// The stdio calls of libstallwatch_posix.so (cat STDIO). The C library's
// streams call the kernel through internal entry points, so a traced fread
// is one STDIO region, never also a POSIX read.

#include <fcntl.h>
#include <stdio.h>

#include "capture.h"
#include "real_call.h"

using stallwatch::posix::fd_table;
using stallwatch::posix::in_capture;
using stallwatch::posix::Op;
using stallwatch::posix::RealCall;
using stallwatch::posix::traced_call;

namespace {

RealCall<FILE*(const char*, const char*)> real_fopen("fopen");
RealCall<FILE*(const char*, const char*)> real_fopen64("fopen64");
RealCall<size_t(void*, size_t, size_t, FILE*)> real_fread("fread");
RealCall<size_t(const void*, size_t, size_t, FILE*)> real_fwrite("fwrite");
RealCall<int(FILE*)> real_fclose("fclose");

[[gnu::constructor]] void resolve_real_stdio_calls() noexcept {
  (void)real_fopen.get(), (void)real_fopen64.get(), (void)real_fread.get();
  (void)real_fwrite.get(), (void)real_fclose.get();
}

constexpr auto kNoValue = [](auto) noexcept -> std::int64_t { return 0; };

std::uint32_t stream_file(FILE* stream) noexcept {
  return stream != nullptr ? fd_table.file(fileno_unlocked(stream)) : 0;
}

constexpr auto kStreamFd = [](FILE* stream) noexcept {
  return stream != nullptr ? fileno_unlocked(stream) : -1;
};

}  // namespace

extern "C" {

[[gnu::visibility("default")]] FILE* fopen(const char* path, const char* mode) {
  return stallwatch::posix::open_traced(
      Op::kFopen, AT_FDCWD, path, [=]() noexcept { return real_fopen.get()(path, mode); },
      kStreamFd);
}

[[gnu::visibility("default")]] FILE* fopen64(const char* path, const char* mode) {
  return stallwatch::posix::open_traced(
      Op::kFopen64, AT_FDCWD, path, [=]() noexcept { return real_fopen64.get()(path, mode); },
      kStreamFd);
}

[[gnu::visibility("default")]] size_t fread(void* buffer, size_t size, size_t count, FILE* stream) {
  const std::uint32_t file = stream_file(stream);
  if (file == 0) [[likely]]
    return real_fread.get()(buffer, size, count, stream);
  return traced_call(
      Op::kFread, file, [=]() noexcept { return real_fread.get()(buffer, size, count, stream); },
      [=](size_t items) noexcept { return static_cast<std::int64_t>(items * size); });
}

[[gnu::visibility("default")]] size_t fwrite(const void* buffer, size_t size, size_t count,
                                             FILE* stream) {
  const std::uint32_t file = stream_file(stream);
  if (file == 0) [[likely]]
    return real_fwrite.get()(buffer, size, count, stream);
  return traced_call(
      Op::kFwrite, file, [=]() noexcept { return real_fwrite.get()(buffer, size, count, stream); },
      [=](size_t items) noexcept { return static_cast<std::int64_t>(items * size); });
}

[[gnu::visibility("default")]] int fclose(FILE* stream) {
  const std::uint32_t file = stream_file(stream);
  if (file == 0) [[likely]]
    return real_fclose.get()(stream);
  fd_table.set(fileno_unlocked(stream), 0);
  return traced_call(
      Op::kFclose, file, [=]() noexcept { return real_fclose.get()(stream); }, kNoValue);
}

}  // extern "C"
