// SPDX-License-Identifier: MIT
#pragma once

// A tiny HTTP/1.1 server on 127.0.0.1 for tests that need something to POST
// to (a webhook receiver, a fake Alertmanager): records every request and
// answers with a configurable status, optionally after a delay. One thread,
// one connection at a time, Content-Length bodies only. Test-only code.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace stallwatch::test {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

class HttpReceiver {
 public:
  HttpReceiver();  // listens on a free port at once
  ~HttpReceiver();
  HttpReceiver(const HttpReceiver&) = delete;
  HttpReceiver& operator=(const HttpReceiver&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void set_status(int status) { status_ = status; }
  void set_delay(std::chrono::milliseconds delay) { delay_ms_ = static_cast<int>(delay.count()); }

  std::vector<ReceivedRequest> requests() const;
  std::size_t count() const;
  // Waits until at least `n` requests arrived; false on timeout.
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout) const;

 private:
  void serve();
  void handle(int fd);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> status_{200};
  std::atomic<int> delay_ms_{0};
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  std::vector<ReceivedRequest> requests_;
  std::thread thread_;
};

}  // namespace stallwatch::test
