// SPDX-License-Identifier: MIT
// A program that makes every call libstallwatch_posix.so interposes, on
// files in the directory given as its argument, and prints one line per call
// with the result and errno (and a checksum of the bytes read). The tests run
// it with and without the preload and require byte-identical output: the
// capture must never change a result or errno. Descriptor numbers are not
// printed (the agent opens its own sockets, so numbers may differ).

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" ssize_t __read_chk(int fd, void* buffer, size_t count, size_t buffer_size);

namespace {

constexpr int kErrnoCanary = 4242;
std::string dir;

std::string in_dir(const char* name) {
  return dir + "/" + name;
}

std::uint64_t checksum(const void* data, long size) {
  std::uint64_t hash = 1469598103934665603ull;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (long i = 0; i < size; ++i)
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

// Prints the call's result and errno; errno is set to a canary first, so a
// call that succeeds must leave it untouched.
void report(const char* what, long result, int error, std::uint64_t sum = 0) {
  std::printf("%-28s result=%ld errno=%d sum=%016llx\n", what, result, error,
              static_cast<unsigned long long>(sum));
}

void report_fd(const char* what, int fd, int error) {
  std::printf("%-28s opened=%d errno=%d\n", what, fd >= 0 ? 1 : 0, error);
}

#define CALL(what, expr)     \
  do {                       \
    errno = kErrnoCanary;    \
    const long r_ = (expr);  \
    report(what, r_, errno); \
  } while (0)

void on_alarm(int) {}

void write_data_file(const std::string& path, int size) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i)
    bytes[static_cast<std::size_t>(i)] = static_cast<unsigned char>((i * 131 + 7) & 0xff);
  FILE* out = std::fopen(path.c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size(), out);
  std::fclose(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: posix_probe DIR\n");
    return 2;
  }
  dir = argv[1];
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string data = in_dir("data.bin");
  write_data_file(data, 10000);
  char buffer[8192];

  errno = kErrnoCanary;
  int fd = open(data.c_str(), O_RDONLY);
  report_fd("open", fd, errno);
  for (int i = 0; i < 4; ++i) {  // 4096, 4096, 1808 (partial), 0 (end of file)
    errno = kErrnoCanary;
    const long n = read(fd, buffer, 4096);
    report("read 4096", n, errno, checksum(buffer, n > 0 ? n : 0));
  }
  CALL("lseek SEEK_SET 100", lseek(fd, 100, SEEK_SET));
  CALL("lseek64 SEEK_END", lseek64(fd, 0, SEEK_END));
  CALL("lseek bad whence", lseek(fd, 0, 12345));
  errno = kErrnoCanary;
  long n = pread(fd, buffer, 1000, 9500);  // partial: 500
  report("pread past end", n, errno, checksum(buffer, n > 0 ? n : 0));
  CALL("pread64 beyond end", pread64(fd, buffer, 100, 20000));
  CALL("pread bad offset", pread(fd, buffer, 100, -1));
  struct iovec iov[2] = {{buffer, 10}, {buffer + 10, 20}};
  CALL("readv", readv(fd, iov, 2));
  CALL("preadv", preadv(fd, iov, 2, 5));
  CALL("preadv64", preadv64(fd, iov, 2, 9990));
  struct stat info {};
  CALL("fstat", fstat(fd, &info));
  std::printf("fstat size=%lld\n", static_cast<long long>(info.st_size));
  struct stat64 info64 {};
  CALL("fstat64", fstat64(fd, &info64));
  void* map = mmap(nullptr, 10000, PROT_READ, MAP_PRIVATE, fd, 0);
  std::printf("%-28s ok=%d sum=%016llx\n", "mmap", map != MAP_FAILED ? 1 : 0,
              static_cast<unsigned long long>(map != MAP_FAILED ? checksum(map, 10000) : 0));
  CALL("munmap", munmap(map, 10000));
  errno = kErrnoCanary;
  void* bad_map = mmap64(nullptr, 100, PROT_READ, MAP_PRIVATE, 987, 0);
  report("mmap64 bad fd", bad_map == MAP_FAILED ? -1 : 0, errno);
  CALL("close", close(fd));
  CALL("close again", close(fd));
  CALL("read closed", read(fd, buffer, 10));
  CALL("fstat closed", fstat(fd, &info));

  errno = kErrnoCanary;
  fd = open(in_dir("missing").c_str(), O_RDONLY);
  report_fd("open missing", fd, errno);
  CALL("stat", stat(data.c_str(), &info));
  CALL("stat64 missing", stat64(in_dir("missing").c_str(), &info64));
  struct statx sx {};
  CALL("statx", statx(AT_FDCWD, data.c_str(), 0, STATX_SIZE, &sx));
  std::printf("statx size=%llu\n", static_cast<unsigned long long>(sx.stx_size));
  CALL("statx missing", statx(AT_FDCWD, in_dir("missing").c_str(), 0, STATX_SIZE, &sx));

  const int dirfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  errno = kErrnoCanary;
  fd = openat(dirfd, "data.bin", O_RDONLY);
  report_fd("openat relative", fd, errno);
  errno = kErrnoCanary;
  n = read(fd, buffer, 100);
  report("read after openat", n, errno, checksum(buffer, n > 0 ? n : 0));
  CALL("statx empty path", statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, &sx));
  close(fd);
  errno = kErrnoCanary;
  fd = openat64(dirfd, "missing", O_RDONLY);
  report_fd("openat64 missing", fd, errno);
  close(dirfd);

  const std::string out = in_dir("out.bin");
  errno = kErrnoCanary;
  fd = creat(out.c_str(), 0644);
  report_fd("creat", fd, errno);
  CALL("write", write(fd, "hello world\n", 12));
  CALL("pwrite", pwrite(fd, "HELLO", 5, 0));
  CALL("pwrite64", pwrite64(fd, "W", 1, 6));
  struct iovec wiov[2] = {{const_cast<char*>("ab"), 2}, {const_cast<char*>("cd"), 2}};
  CALL("pwritev", pwritev(fd, wiov, 2, 12));
  CALL("pwritev64", pwritev64(fd, wiov, 2, 16));
  CALL("fsync", fsync(fd));
  CALL("fdatasync", fdatasync(fd));
  CALL("read write-only", read(fd, buffer, 10));
  close(fd);
  errno = kErrnoCanary;
  fd = creat64(in_dir("no-such-dir/x").c_str(), 0644);
  report_fd("creat64 missing dir", fd, errno);
  errno = kErrnoCanary;
  fd = open64(out.c_str(), O_RDONLY);
  report_fd("open64", fd, errno);
  errno = kErrnoCanary;
  n = read(fd, buffer, sizeof(buffer));
  report("read written file", n, errno, checksum(buffer, n > 0 ? n : 0));
  close(fd);
  CALL("write bad fd", write(-1, "x", 1));
  CALL("fsync bad fd", fsync(-5));

  errno = kErrnoCanary;
  FILE* stream = std::fopen(data.c_str(), "rb");
  report("fopen", stream != nullptr ? 1 : 0, errno);
  for (int i = 0; i < 2; ++i) {  // 2000 items, then 1333 (partial)
    errno = kErrnoCanary;
    n = static_cast<long>(std::fread(buffer, 3, 2000, stream));
    report("fread", n, errno, checksum(buffer, n * 3));
  }
  CALL("fclose", std::fclose(stream));
  errno = kErrnoCanary;
  stream = fopen64(in_dir("missing").c_str(), "rb");
  report("fopen64 missing", stream != nullptr ? 1 : 0, errno);
  stream = std::fopen(in_dir("stream.txt").c_str(), "wb");
  CALL("fwrite", static_cast<long>(std::fwrite("0123456789", 2, 5, stream)));
  CALL("fclose written", std::fclose(stream));

  // Copies of a descriptor read the same file; __read_chk is the read of a
  // _FORTIFY_SOURCE build. High numbers for the dup2/dup3 targets stay clear
  // of the agent's own descriptors.
  fd = open(data.c_str(), O_RDONLY);
  const int copies[] = {dup(fd), dup2(fd, 900), dup3(fd, 901, O_CLOEXEC), fcntl(fd, F_DUPFD, 0),
                        fcntl(fd, F_DUPFD_CLOEXEC, 0)};
  long want = 11;
  for (const int copy : copies) {
    errno = kErrnoCanary;
    n = read(copy, buffer, static_cast<std::size_t>(want++));
    report("read copy", n, errno, checksum(buffer, n > 0 ? n : 0));
  }
  errno = kErrnoCanary;
  n = __read_chk(fd, buffer, 16, sizeof(buffer));
  report("__read_chk", n, errno, checksum(buffer, n > 0 ? n : 0));
  CALL("dup2 bad fd", dup2(-1, 902));
  CALL("fcntl F_GETFD", fcntl(copies[4], F_GETFD));
  // A copy of an untraced descriptor over a traced number is untraced.
  const int null_fd = open("/dev/null", O_RDONLY);
  CALL("dup2 untraced over traced", dup2(null_fd, 900) == 900);
  CALL("read untraced copy", read(900, buffer, 17));
  for (const int copy : copies)
    close(copy);
  close(null_fd);
  close(fd);

  // A FIFO stands in for a slow remote file: a partial read, then a read
  // interrupted by a signal (no SA_RESTART) that must fail with EINTR.
  const std::string fifo = in_dir("fifo");
  unlink(fifo.c_str());
  mkfifo(fifo.c_str(), 0600);
  fd = open(fifo.c_str(), O_RDWR);
  const int writer = open(fifo.c_str(), O_WRONLY);
  (void)!write(writer, "0123456789", 10);
  errno = kErrnoCanary;
  n = read(fd, buffer, 4096);
  report("read fifo partial", n, errno, checksum(buffer, n > 0 ? n : 0));
  struct sigaction action {};
  action.sa_handler = on_alarm;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, nullptr);
  struct itimerval timer {};
  timer.it_value.tv_usec = 50000;
  setitimer(ITIMER_REAL, &timer, nullptr);
  CALL("read fifo EINTR", read(fd, buffer, 4096));
  close(writer);
  close(fd);
  return 0;
}
