// SPDX-License-Identifier: MIT
// The POSIX calls of libstallwatch_posix.so: each wrapper looks its
// descriptor up in fd_table (or checks its path at open time), calls the C
// library, and records a region only for traced files (capture.h).

#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture.h"
#include "mapping_table.h"
#include "real_call.h"

using stallwatch::posix::bytes_moved;
using stallwatch::posix::fd_table;
using stallwatch::posix::in_capture;
using stallwatch::posix::Op;
using stallwatch::posix::RealCall;
using stallwatch::posix::traced_call;

namespace {

constexpr auto kNoValue = [](auto) noexcept -> std::int64_t { return 0; };
constexpr auto kBytes = [](auto result) noexcept -> std::int64_t {
  return bytes_moved(static_cast<long>(result));
};

RealCall<int(const char*, int, ...)> real_open("open");
RealCall<int(const char*, int, ...)> real_open64("open64");
RealCall<int(int, const char*, int, ...)> real_openat("openat");
RealCall<int(int, const char*, int, ...)> real_openat64("openat64");
RealCall<int(const char*, mode_t)> real_creat("creat");
RealCall<int(const char*, mode_t)> real_creat64("creat64");
RealCall<int(int)> real_close("close");
RealCall<ssize_t(int, void*, size_t)> real_read("read");
RealCall<ssize_t(int, void*, size_t, off_t)> real_pread("pread");
RealCall<ssize_t(int, void*, size_t, off64_t)> real_pread64("pread64");
RealCall<ssize_t(int, const struct iovec*, int)> real_readv("readv");
RealCall<ssize_t(int, const struct iovec*, int, off_t)> real_preadv("preadv");
RealCall<ssize_t(int, const struct iovec*, int, off64_t)> real_preadv64("preadv64");
RealCall<ssize_t(int, const void*, size_t)> real_write("write");
RealCall<ssize_t(int, const void*, size_t, off_t)> real_pwrite("pwrite");
RealCall<ssize_t(int, const void*, size_t, off64_t)> real_pwrite64("pwrite64");
RealCall<ssize_t(int, const struct iovec*, int, off_t)> real_pwritev("pwritev");
RealCall<ssize_t(int, const struct iovec*, int, off64_t)> real_pwritev64("pwritev64");
RealCall<off_t(int, off_t, int)> real_lseek("lseek");
RealCall<off64_t(int, off64_t, int)> real_lseek64("lseek64");
RealCall<int(const char*, struct stat*)> real_stat("stat");
RealCall<int(const char*, struct stat64*)> real_stat64("stat64");
RealCall<int(int, struct stat*)> real_fstat("fstat");
RealCall<int(int, struct stat64*)> real_fstat64("fstat64");
RealCall<int(int, const char*, int, unsigned int, struct statx*)> real_statx("statx");
RealCall<void*(void*, size_t, int, int, int, off_t)> real_mmap("mmap");
RealCall<void*(void*, size_t, int, int, int, off64_t)> real_mmap64("mmap64");
RealCall<int(void*, size_t)> real_munmap("munmap");
RealCall<int(int)> real_fsync("fsync");
RealCall<int(int)> real_fdatasync("fdatasync");
RealCall<int(int)> real_dup("dup");
RealCall<int(int, int)> real_dup2("dup2");
RealCall<int(int, int, int)> real_dup3("dup3");
RealCall<int(int, int, ...)> real_fcntl("fcntl");
RealCall<int(int, int, ...)> real_fcntl64("fcntl64");
RealCall<ssize_t(int, void*, size_t, size_t)> real_read_chk("__read_chk");

// Resolves every entry at load time, while the process is still single-threaded,
// so that no wrapper ever calls dlsym (which may allocate) in the middle of a program.
[[gnu::constructor]] void resolve_real_calls() noexcept {
  (void)real_open.get(), (void)real_open64.get(), (void)real_openat.get();
  (void)real_openat64.get(), (void)real_creat.get(), (void)real_creat64.get();
  (void)real_close.get(), (void)real_read.get(), (void)real_pread.get();
  (void)real_pread64.get(), (void)real_readv.get(), (void)real_preadv.get();
  (void)real_preadv64.get(), (void)real_write.get(), (void)real_pwrite.get();
  (void)real_pwrite64.get(), (void)real_pwritev.get(), (void)real_pwritev64.get();
  (void)real_lseek.get(), (void)real_lseek64.get(), (void)real_stat.get();
  (void)real_stat64.get(), (void)real_fstat.get(), (void)real_fstat64.get();
  (void)real_statx.get(), (void)real_mmap.get(), (void)real_mmap64.get();
  (void)real_munmap.get(), (void)real_fsync.get(), (void)real_fdatasync.get();
  (void)real_dup.get(), (void)real_dup2.get(), (void)real_dup3.get();
  (void)real_fcntl.get(), (void)real_fcntl64.get(), (void)real_read_chk.get();
}

bool needs_mode(int flags) noexcept {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

constexpr auto kFdOf = [](int fd) noexcept { return fd; };

// A copy of `from` made as `copy` (dup, dup2, dup3, fcntl F_DUPFD*): it is
// open on the same file, traced or not. Keeps errno (only a store).
int copied(int from, int copy) noexcept {
  if (copy >= 0 && copy != from) fd_table.set(copy, fd_table.file(from));
  return copy;
}

// fcntl and fcntl64: the third argument passed on as it came (an int or a
// pointer, whatever `cmd` takes), as the C library itself reads it.
template <typename Real>
int control(Real& real, int fd, int cmd, void* arg) noexcept {
  const int result = real.get()(fd, cmd, arg);
  if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) return copied(fd, result);
  return result;
}

// mmap of a traced file: a mark (the mapped length), since reads of the
// mapping happen in page faults, not in calls.
template <typename Call>
void* map_file(Op op, int fd, size_t length, Call&& call) noexcept {
  const std::uint32_t file = fd_table.file(fd);
  void* result = call();
  if (file != 0 && result != MAP_FAILED && !in_capture) {
    in_capture = true;
    stallwatch::posix::remember_mapping(result);
    stallwatch::posix::record_mark(op, static_cast<std::int64_t>(length));
    in_capture = false;
  }
  return result;
}

// A stat-like call on a path: a region without a file when the path is traced
// and the agent already runs. Never the call that starts the agent: Python's
// imports stat directories long before a spawned DataLoader worker declares
// its role, and the role is fixed when the agent starts.
template <typename Call>
int stat_path(Op op, int dirfd, const char* path, Call&& call) noexcept {
  if (in_capture || sw_is_running() == 0) return call();
  in_capture = true;
  const bool traced = stallwatch::posix::path_traced(dirfd, path);
  in_capture = false;
  return traced ? traced_call(op, 0, call, kNoValue) : call();
}

}  // namespace

extern "C" {

[[gnu::visibility("default")]] int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, mode_t);
    va_end(args);
  }
  return stallwatch::posix::open_traced(
      Op::kOpen, AT_FDCWD, path, [=]() noexcept { return real_open.get()(path, flags, mode); },
      kFdOf);
}

[[gnu::visibility("default")]] int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, mode_t);
    va_end(args);
  }
  return stallwatch::posix::open_traced(
      Op::kOpen64, AT_FDCWD, path, [=]() noexcept { return real_open64.get()(path, flags, mode); },
      kFdOf);
}

[[gnu::visibility("default")]] int openat(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, mode_t);
    va_end(args);
  }
  return stallwatch::posix::open_traced(
      Op::kOpenat, dirfd, path,
      [=]() noexcept { return real_openat.get()(dirfd, path, flags, mode); }, kFdOf);
}

[[gnu::visibility("default")]] int openat64(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, mode_t);
    va_end(args);
  }
  return stallwatch::posix::open_traced(
      Op::kOpenat64, dirfd, path,
      [=]() noexcept { return real_openat64.get()(dirfd, path, flags, mode); }, kFdOf);
}

[[gnu::visibility("default")]] int creat(const char* path, mode_t mode) {
  return stallwatch::posix::open_traced(
      Op::kCreat, AT_FDCWD, path, [=]() noexcept { return real_creat.get()(path, mode); }, kFdOf);
}

[[gnu::visibility("default")]] int creat64(const char* path, mode_t mode) {
  return stallwatch::posix::open_traced(
      Op::kCreat64, AT_FDCWD, path, [=]() noexcept { return real_creat64.get()(path, mode); },
      kFdOf);
}

[[gnu::visibility("default")]] int close(int fd) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_close.get()(fd);
  fd_table.set(fd, 0);
  return traced_call(
      Op::kClose, file, [=]() noexcept { return real_close.get()(fd); }, kNoValue);
}

[[gnu::visibility("default")]] ssize_t read(int fd, void* buffer, size_t count) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_read.get()(fd, buffer, count);
  return traced_call(
      Op::kRead, file, [=]() noexcept { return real_read.get()(fd, buffer, count); }, kBytes);
}

// What a _FORTIFY_SOURCE build calls for read() into a buffer of known
// size: a read like any other (the C library's own check runs inside).
[[gnu::visibility("default")]] ssize_t __read_chk(int fd, void* buffer, size_t count,
                                                  size_t buffer_size) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_read_chk.get()(fd, buffer, count, buffer_size);
  return traced_call(
      Op::kRead, file,
      [=]() noexcept { return real_read_chk.get()(fd, buffer, count, buffer_size); }, kBytes);
}

[[gnu::visibility("default")]] int dup(int fd) noexcept {
  return copied(fd, real_dup.get()(fd));
}

[[gnu::visibility("default")]] int dup2(int fd, int copy) noexcept {
  return copied(fd, real_dup2.get()(fd, copy));
}

[[gnu::visibility("default")]] int dup3(int fd, int copy, int flags) noexcept {
  return copied(fd, real_dup3.get()(fd, copy, flags));
}

[[gnu::visibility("default")]] int fcntl(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  return control(real_fcntl, fd, cmd, arg);
}

[[gnu::visibility("default")]] int fcntl64(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  return control(real_fcntl64, fd, cmd, arg);
}

[[gnu::visibility("default")]] ssize_t pread(int fd, void* buffer, size_t count, off_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_pread.get()(fd, buffer, count, offset);
  return traced_call(
      Op::kPread, file, [=]() noexcept { return real_pread.get()(fd, buffer, count, offset); },
      kBytes);
}

[[gnu::visibility("default")]] ssize_t pread64(int fd, void* buffer, size_t count, off64_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_pread64.get()(fd, buffer, count, offset);
  return traced_call(
      Op::kPread64, file, [=]() noexcept { return real_pread64.get()(fd, buffer, count, offset); },
      kBytes);
}

[[gnu::visibility("default")]] ssize_t readv(int fd, const struct iovec* iov, int count) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_readv.get()(fd, iov, count);
  return traced_call(
      Op::kReadv, file, [=]() noexcept { return real_readv.get()(fd, iov, count); }, kBytes);
}

[[gnu::visibility("default")]] ssize_t preadv(int fd, const struct iovec* iov, int count,
                                              off_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_preadv.get()(fd, iov, count, offset);
  return traced_call(
      Op::kPreadv, file, [=]() noexcept { return real_preadv.get()(fd, iov, count, offset); },
      kBytes);
}

[[gnu::visibility("default")]] ssize_t preadv64(int fd, const struct iovec* iov, int count,
                                                off64_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_preadv64.get()(fd, iov, count, offset);
  return traced_call(
      Op::kPreadv64, file, [=]() noexcept { return real_preadv64.get()(fd, iov, count, offset); },
      kBytes);
}

[[gnu::visibility("default")]] ssize_t write(int fd, const void* buffer, size_t count) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_write.get()(fd, buffer, count);
  return traced_call(
      Op::kWrite, file, [=]() noexcept { return real_write.get()(fd, buffer, count); }, kBytes);
}

[[gnu::visibility("default")]] ssize_t pwrite(int fd, const void* buffer, size_t count,
                                              off_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_pwrite.get()(fd, buffer, count, offset);
  return traced_call(
      Op::kPwrite, file, [=]() noexcept { return real_pwrite.get()(fd, buffer, count, offset); },
      kBytes);
}

[[gnu::visibility("default")]] ssize_t pwrite64(int fd, const void* buffer, size_t count,
                                                off64_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_pwrite64.get()(fd, buffer, count, offset);
  return traced_call(
      Op::kPwrite64, file,
      [=]() noexcept { return real_pwrite64.get()(fd, buffer, count, offset); }, kBytes);
}

[[gnu::visibility("default")]] ssize_t pwritev(int fd, const struct iovec* iov, int count,
                                               off_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_pwritev.get()(fd, iov, count, offset);
  return traced_call(
      Op::kPwritev, file, [=]() noexcept { return real_pwritev.get()(fd, iov, count, offset); },
      kBytes);
}

[[gnu::visibility("default")]] ssize_t pwritev64(int fd, const struct iovec* iov, int count,
                                                 off64_t offset) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_pwritev64.get()(fd, iov, count, offset);
  return traced_call(
      Op::kPwritev64, file, [=]() noexcept { return real_pwritev64.get()(fd, iov, count, offset); },
      kBytes);
}

[[gnu::visibility("default")]] off_t lseek(int fd, off_t offset, int whence) noexcept {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_lseek.get()(fd, offset, whence);
  return traced_call(
      Op::kLseek, file, [=]() noexcept { return real_lseek.get()(fd, offset, whence); }, kNoValue);
}

[[gnu::visibility("default")]] off64_t lseek64(int fd, off64_t offset, int whence) noexcept {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_lseek64.get()(fd, offset, whence);
  return traced_call(
      Op::kLseek64, file, [=]() noexcept { return real_lseek64.get()(fd, offset, whence); },
      kNoValue);
}

[[gnu::visibility("default")]] int stat(const char* path, struct stat* out) noexcept {
  return stat_path(Op::kStat, AT_FDCWD, path,
                   [=]() noexcept { return real_stat.get()(path, out); });
}

[[gnu::visibility("default")]] int stat64(const char* path, struct stat64* out) noexcept {
  return stat_path(Op::kStat64, AT_FDCWD, path,
                   [=]() noexcept { return real_stat64.get()(path, out); });
}

[[gnu::visibility("default")]] int fstat(int fd, struct stat* out) noexcept {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_fstat.get()(fd, out);
  return traced_call(
      Op::kFstat, file, [=]() noexcept { return real_fstat.get()(fd, out); }, kNoValue);
}

[[gnu::visibility("default")]] int fstat64(int fd, struct stat64* out) noexcept {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_fstat64.get()(fd, out);
  return traced_call(
      Op::kFstat64, file, [=]() noexcept { return real_fstat64.get()(fd, out); }, kNoValue);
}

[[gnu::visibility("default")]] int statx(int dirfd, const char* path, int flags, unsigned int mask,
                                         struct statx* out) noexcept {
  auto* fn = real_statx.get();
  if (fn == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  auto call = [&]() noexcept { return fn(dirfd, path, flags, mask, out); };
  if (path != nullptr && path[0] == '\0' && (flags & AT_EMPTY_PATH) != 0) {
    const std::uint32_t file = fd_table.file(dirfd);
    return file == 0 ? call() : traced_call(Op::kStatx, file, call, kNoValue);
  }
  return stat_path(Op::kStatx, dirfd, path, call);
}

[[gnu::visibility("default")]] void* mmap(void* address, size_t length, int protection, int flags,
                                          int fd, off_t offset) noexcept {
  return map_file(Op::kMmap, fd, length, [=]() noexcept {
    return real_mmap.get()(address, length, protection, flags, fd, offset);
  });
}

[[gnu::visibility("default")]] void* mmap64(void* address, size_t length, int protection, int flags,
                                            int fd, off64_t offset) noexcept {
  return map_file(Op::kMmap64, fd, length, [=]() noexcept {
    return real_mmap64.get()(address, length, protection, flags, fd, offset);
  });
}

[[gnu::visibility("default")]] int munmap(void* address, size_t length) noexcept {
  const int result = real_munmap.get()(address, length);
  if (result == 0 && !in_capture && stallwatch::posix::forget_mapping(address)) {
    in_capture = true;
    stallwatch::posix::record_mark(Op::kMunmap, static_cast<std::int64_t>(length));
    in_capture = false;
  }
  return result;
}

[[gnu::visibility("default")]] int fsync(int fd) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_fsync.get()(fd);
  return traced_call(
      Op::kFsync, file, [=]() noexcept { return real_fsync.get()(fd); }, kNoValue);
}

[[gnu::visibility("default")]] int fdatasync(int fd) {
  const std::uint32_t file = fd_table.file(fd);
  if (file == 0) [[likely]]
    return real_fdatasync.get()(fd);
  return traced_call(
      Op::kFdatasync, file, [=]() noexcept { return real_fdatasync.get()(fd); }, kNoValue);
}

}  // extern "C"
