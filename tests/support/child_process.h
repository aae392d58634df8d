// SPDX-License-Identifier: MIT
#pragma once

// Runs a helper executable as a child process for an integration test: argv
// and extra environment given up front, stdout and stderr appended to a file.
// The child is killed (SIGKILL) and reaped on destruction if still running.
// Test-only; used from the test's main thread.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallwatch::test {

struct ChildOptions {
  std::vector<std::string> argv;                         // argv[0] is the executable path
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) environ
  std::string output_path;                               // stdout + stderr; empty: inherited
};

class ChildProcess {
 public:
  explicit ChildProcess(ChildOptions options);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;

  // fork + execve. False when fork failed; an exec failure shows as exit 127.
  bool start();
  int pid() const { return pid_; }
  // True until the child has exited (reaps it then; see exit_status()).
  bool running();
  void signal(int signal);
  // Waits for exit: the exit code, 128 + signal number, or nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  std::optional<int> exit_status() const { return status_; }
  // What the child wrote so far (empty without an output_path).
  std::string output() const;

 private:
  bool reap(bool block);

  ChildOptions options_;
  int pid_ = -1;
  std::optional<int> status_;
};

}  // namespace stallwatch::test
