// SPDX-License-Identifier: MIT
#include "daemon_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace stallwatch::test {

const char* stallwatchd_path() {
  return STALLWATCH_TEST_STALLWATCHD;
}

DaemonProcess::DaemonProcess(DaemonOptions options) : options_(std::move(options)) {
  pick_ports();
  ipc_endpoint_ = "ipc://" + dir_.path() + "/ingest.sock";
  log_path_ = dir_.path() + "/stallwatchd.log";
}

void DaemonProcess::pick_ports() {
  http_port_ = free_tcp_port();
  tcp_port_ = free_tcp_port();
  tcp_endpoint_ = "tcp://127.0.0.1:" + std::to_string(tcp_port_);
}

DaemonProcess::~DaemonProcess() {
  if (running()) stop(SIGTERM, std::chrono::seconds(5));
  if (running()) stop(SIGKILL, std::chrono::seconds(5));
}

bool DaemonProcess::start() {
  for (int attempt = 0;; ++attempt) {
    if (start_once()) {
      started_ = true;
      return true;
    }
    if (started_ || attempt == 2 || running() ||
        log().find("Address already in use") == std::string::npos) {
      return false;
    }
    std::ofstream(log_path_, std::ios::trunc).flush();
    pick_ports();
  }
}

bool DaemonProcess::start_once() {
  std::vector<std::string> args = {stallwatchd_path(),
                                   "--ingest",
                                   tcp_endpoint_,
                                   "--ingest",
                                   ipc_endpoint_,
                                   "--http",
                                   "127.0.0.1:" + std::to_string(http_port_)};
  if (!options_.config_toml.empty()) {
    const std::string path = dir_.path() + "/stallwatchd.toml";
    std::ofstream(path) << options_.config_toml;
    args.push_back("--config");
    args.push_back(path);
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  // A daemon given --http-tls-cert serves TLS, which get() does not speak:
  // wait for its "dashboard and API on https://" log line instead.
  const bool tls = std::find(args.begin(), args.end(), "--http-tls-cert") != args.end();

  const pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  return wait_until(
             [&] {
               if (!running()) return true;
               if (tls) return log().find("dashboard and API on https://") != std::string::npos;
               return get("/healthz").status == 200;
             },
             options_.start_timeout) &&
         running();
}

bool DaemonProcess::running() const {
  if (pid_ <= 0) return false;
  return ::waitpid(pid_, nullptr, WNOHANG) == 0;
}

std::optional<int> DaemonProcess::stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return std::nullopt;
  ::kill(pid_, signal);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      return 128 + WTERMSIG(status);
    }
    if (r < 0) {
      pid_ = -1;
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

std::string DaemonProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace stallwatch::test
