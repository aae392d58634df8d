// SPDX-License-Identifier: MIT
#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace stallwatch::test {

ChildProcess::ChildProcess(ChildOptions options) : options_(std::move(options)) {}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : options_(std::move(other.options_)), pid_(other.pid_), status_(other.status_) {
  other.pid_ = -1;
}

ChildProcess::~ChildProcess() {
  if (running()) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
}

bool ChildProcess::start() {
  // Everything execve needs is built before fork(): the child only dups and execs.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [key, value] : options_.env)
      replaced = replaced || key == name;
    if (!replaced) env_strings.push_back(entry);
  }
  for (const auto& [key, value] : options_.env)
    env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = options_.argv;
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int fd = -1;
  if (!options_.output_path.empty()) {
    fd = ::open(options_.output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }

  const pid_t pid = ::fork();
  if (pid < 0) {
    if (fd >= 0) ::close(fd);
    return false;
  }
  if (pid == 0) {
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  if (fd >= 0) ::close(fd);
  pid_ = pid;
  status_.reset();
  return true;
}

bool ChildProcess::reap(bool block) {
  if (pid_ <= 0) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (r == 0) return false;
  if (r == pid_) status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  pid_ = -1;
  return true;
}

bool ChildProcess::running() {
  return pid_ > 0 && !reap(false);
}

void ChildProcess::signal(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

std::optional<int> ChildProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status_;
}

std::string ChildProcess::output() const {
  if (options_.output_path.empty()) return {};
  std::ifstream in(options_.output_path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace stallwatch::test
