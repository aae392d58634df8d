// SPDX-License-Identifier: MIT
#include "fresh_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace stallwatch::test {

ChildResult wait_child(pid_t pid, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  ChildResult result;
  result.pid = pid;
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed);
    if (done == pid) {
      result.exited = WIFEXITED(status);
      result.exit_code = result.exited ? WEXITSTATUS(status) : -1;
      result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      return result;
    }
    if (done < 0 || elapsed > timeout) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.exited = false;
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

ChildResult run_child(const std::function<void()>& body, std::chrono::milliseconds timeout) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return {};
  }
  if (pid == 0) {
    body();
    std::fflush(nullptr);
    std::exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  return wait_child(pid, timeout);
}

void run_in_fresh_process(const std::function<void()>& body, std::chrono::milliseconds timeout) {
  const ChildResult result = run_child(body, timeout);
  EXPECT_TRUE(result.exited) << "child did not exit within " << timeout.count() << " ms (signal "
                             << result.signal << ")";
  EXPECT_EQ(result.exit_code, 0) << "assertions failed in the child (see its output above)";
}

}  // namespace stallwatch::test
