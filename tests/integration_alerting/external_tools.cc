// SPDX-License-Identifier: MIT
#include "external_tools.h"

#include <sys/wait.h>

#include <cstdio>

#include "http_get.h"
#include "test_env.h"

namespace stallwatch::test {

bool wait_http_ready(ChildProcess& server, int port, const std::string& path,
                     std::chrono::milliseconds timeout) {
  return wait_until([&] { return !server.running() || http_get(port, path).status == 200; },
                    timeout, std::chrono::milliseconds(100)) &&
         server.running();
}

int run_command(const std::string& command, std::string& output) {
  output.clear();
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0)
    output.append(buf, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace stallwatch::test
