// SPDX-License-Identifier: MIT
#pragma once

// Small helpers for tests that run real processes on loopback: free ports,
// temporary directories, polling with a deadline. Test-only code.

#include <chrono>
#include <functional>
#include <string>

namespace stallwatch::test {

// A TCP port on 127.0.0.1 that was free a moment ago.
int free_tcp_port();

// A fresh directory under $TMPDIR, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Calls `done` every `interval` until it returns true or `timeout` passes.
bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds interval = std::chrono::milliseconds(20));

}  // namespace stallwatch::test
