// SPDX-License-Identifier: MIT
// peak_rss COMMAND [ARG...]: runs COMMAND and, when it has exited, prints one
// line to stderr:
//   peak_rss: wall_s=W maxrss_kib=M status=S
// W is fork to reap, M is wait4's ru_maxrss of COMMAND alone, S its exit code
// (128 + signal number when killed). Exits with S.
//
// Why a launcher: Linux keeps the resident high-water mark of the memory a
// process had before it exec'd. A process that Python's subprocess starts
// (vfork) inherits the Python interpreter's (~15 MB), so wait4 from Python
// reads at least that for any program. Forked from this small process, the
// program starts from a few hundred KiB and its figure is its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: peak_rss COMMAND [ARG...]\n", stderr);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();  // not vfork: the child must not share this memory
  if (pid < 0) {
    std::fprintf(stderr, "peak_rss: fork: %s\n", std::strerror(errno));
    return 127;
  }
  if (pid == 0) {
    ::execvp(argv[1], argv + 1);
    std::fprintf(stderr, "peak_rss: cannot run %s: %s\n", argv[1], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "peak_rss: wait4: %s\n", std::strerror(errno));
      return 127;
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::fprintf(stderr, "peak_rss: wall_s=%.6f maxrss_kib=%ld status=%d\n", wall, usage.ru_maxrss,
               code);
  return code;
}
