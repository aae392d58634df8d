// SPDX-License-Identifier: MIT
#include "sender_fleet.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frame_template.h"

namespace stallwatch::bench {
namespace {

double self_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

bool read_full(int fd, void* data, std::size_t size, std::chrono::milliseconds timeout) {
  auto* p = static_cast<char*>(data);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (size > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd item{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&item, 1, static_cast<int>(left.count())) <= 0) return false;
    const ssize_t n = ::read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

SenderFleet::~SenderFleet() {
  for (int pid : pids_) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  for (int fd : result_fds_)
    ::close(fd);
  if (ready_fd_ >= 0) ::close(ready_fd_);
  if (go_fd_ >= 0) ::close(go_fd_);
}

bool SenderFleet::start(int count, const Work& work) {
  int ready[2];
  int go[2];
  if (::pipe(ready) != 0 || ::pipe(go) != 0) return false;
  ready_fd_ = ready[0];
  go_fd_ = go[1];
  for (int i = 0; i < count; ++i) {
    int result[2];
    if (::pipe(result) != 0) return false;
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
      ::close(ready[0]);
      ::close(go[1]);
      ::close(result[0]);
      const auto gate = [&] {
        const char byte = 1;
        (void)!::write(ready[1], &byte, 1);
        char ignored;
        while (::read(go[0], &ignored, 1) > 0) {
        }
      };
      const double cpu_before = self_cpu_seconds();
      SenderReport report = work(i, gate);
      report.cpu_seconds = self_cpu_seconds() - cpu_before;
      (void)!::write(result[1], &report, sizeof report);
      ::_exit(0);
    }
    ::close(result[1]);
    pids_.push_back(pid);
    result_fds_.push_back(result[0]);
  }
  ::close(ready[1]);
  ::close(go[0]);
  return true;
}

bool SenderFleet::wait_ready(std::chrono::milliseconds timeout) {
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    char byte;
    if (!read_full(ready_fd_, &byte, 1, timeout)) return false;
  }
  return true;
}

std::int64_t SenderFleet::go() {
  const std::int64_t now = mono_now_ns();
  ::close(go_fd_);
  go_fd_ = -1;
  return now;
}

std::vector<SenderReport> SenderFleet::collect(std::chrono::milliseconds timeout) {
  std::vector<SenderReport> reports(pids_.size());
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    if (!read_full(result_fds_[i], &reports[i], sizeof reports[i], timeout)) {
      reports[i] = {};
      ::kill(pids_[i], SIGKILL);
    }
    ::waitpid(pids_[i], nullptr, 0);
    ::close(result_fds_[i]);
  }
  pids_.clear();
  result_fds_.clear();
  return reports;
}

}  // namespace stallwatch::bench
