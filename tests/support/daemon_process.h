// SPDX-License-Identifier: MIT
#pragma once

// Runs a real stallwatchd for an integration test: free loopback ports, a
// private ipc socket in a temp dir, stderr captured to a file. The daemon is
// stopped (SIGTERM, then SIGKILL after a grace period) on destruction.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "http_get.h"
#include "test_env.h"

namespace stallwatch::test {

struct DaemonOptions {
  std::vector<std::string> extra_args;  // e.g. {"--config", path}
  std::string config_toml;              // written to a file and passed with --config when set
  std::chrono::milliseconds start_timeout{15000};
};

class DaemonProcess {
 public:
  explicit DaemonProcess(DaemonOptions options = {});
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // Starts the daemon and waits for /healthz. Returns false (see log()) on
  // failure. A first start whose port another process took in the meantime
  // (the ports are picked free, then bound by the daemon: a test opening
  // thousands of client connections can take one first) is retried on new
  // ports, up to three times; a restart keeps its ports.
  bool start();
  // Sends `signal` and waits for exit; returns the exit status, or nullopt on timeout.
  std::optional<int> stop(int signal = 15,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool running() const;

  // The daemon's process id (-1 before start() and after stop() saw it exit).
  int pid() const { return pid_; }
  int http_port() const { return http_port_; }
  int tcp_port() const { return tcp_port_; }
  const std::string& tcp_endpoint() const { return tcp_endpoint_; }
  const std::string& ipc_endpoint() const { return ipc_endpoint_; }
  const std::string& dir() const { return dir_.path(); }
  std::string log() const;

  HttpResponse get(const std::string& target) const { return http_get(http_port_, target); }

 private:
  DaemonOptions options_;
  TempDir dir_;
  int http_port_ = 0;
  int tcp_port_ = 0;
  std::string tcp_endpoint_;
  std::string ipc_endpoint_;
  std::string log_path_;
  int pid_ = -1;
  bool started_ = false;  // a start() succeeded once: keep the ports

  bool start_once();
  void pick_ports();
};

// Path of the stallwatchd binary under test (from the build).
const char* stallwatchd_path();

}  // namespace stallwatch::test
