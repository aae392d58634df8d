// SPDX-License-Identifier: MIT
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>

namespace stallwatch::test {

struct ChildResult {
  pid_t pid = 0;
  bool exited = false;  // false: killed after the timeout (or by a signal)
  int exit_code = -1;
  int signal = 0;
  std::chrono::milliseconds elapsed{0};  // from fork to exit
};

// Forks a child that runs `body` and then exit()s (so atexit hooks, the
// agent's final flush among them, run) with status 1 when a GoogleTest
// assertion failed in it, else 0. The agent is process-wide, so a test that
// needs a never-started agent runs its body here, from a test process that
// never touched the agent itself. Kills the child after `timeout`.
ChildResult run_child(const std::function<void()>& body,
                      std::chrono::milliseconds timeout = std::chrono::seconds(60));

// run_child() plus: fails the calling test unless the child exited with 0.
void run_in_fresh_process(const std::function<void()>& body,
                          std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Waits for `pid` up to `timeout`, killing it afterwards.
ChildResult wait_child(pid_t pid, std::chrono::milliseconds timeout);

}  // namespace stallwatch::test
