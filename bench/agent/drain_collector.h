// SPDX-License-Identifier: MIT
#pragma once

#include <zmq.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace stallwatch::bench {

// A PULL socket on an ipc endpoint in a fresh /tmp directory, drained by its
// own thread until destruction: a collector that keeps up and does no work.
class DrainCollector {
 public:
  DrainCollector() {
    char pattern[] = "/tmp/stallwatch-bench-XXXXXX";
    if (mkdtemp(pattern) == nullptr) std::abort();
    directory_ = pattern;
    endpoint_ = "ipc://" + directory_ + "/ingest.sock";
    context_ = zmq_ctx_new();
    socket_ = zmq_socket(context_, ZMQ_PULL);
    const int linger = 0;
    zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger));
    if (zmq_bind(socket_, endpoint_.c_str()) != 0) std::abort();
    thread_ = std::thread([this] { run(); });
  }
  ~DrainCollector() {
    stop_ = true;
    thread_.join();
    zmq_close(socket_);
    zmq_ctx_term(context_);
    std::remove((directory_ + "/ingest.sock").c_str());
    std::remove(directory_.c_str());
  }
  DrainCollector(const DrainCollector&) = delete;
  DrainCollector& operator=(const DrainCollector&) = delete;

  const std::string& endpoint() const { return endpoint_; }
  std::uint64_t frames() const { return frames_.load(); }
  std::uint64_t bytes() const { return bytes_.load(); }

 private:
  void run() {
    zmq_msg_t message;
    zmq_msg_init(&message);
    while (!stop_) {
      zmq_pollitem_t item{socket_, 0, ZMQ_POLLIN, 0};
      if (zmq_poll(&item, 1, 50) <= 0) continue;
      while (zmq_msg_recv(&message, socket_, ZMQ_DONTWAIT) >= 0) {
        frames_.fetch_add(1, std::memory_order_relaxed);
        bytes_.fetch_add(zmq_msg_size(&message), std::memory_order_relaxed);
      }
    }
    zmq_msg_close(&message);
  }

  std::string directory_;
  std::string endpoint_;
  void* context_ = nullptr;
  void* socket_ = nullptr;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> frames_{0};
  std::atomic<std::uint64_t> bytes_{0};
  std::thread thread_;
};

}  // namespace stallwatch::bench
