// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace stallwatch::collector {

// A ZeroMQ PUSH socket connected to a collector, for trace replay. Unlike the
// agent's sender it may wait: a send blocks while the collector is slow (the
// queue is bounded by a high-water mark) and fails only after a timeout, so a
// replay at full speed never drops silently. ZMQ_IMMEDIATE: nothing is queued
// before a connection exists. Owns its context and socket; one thread.
class PushSender {
 public:
  ~PushSender();
  PushSender(const PushSender&) = delete;
  PushSender& operator=(const PushSender&) = delete;

  static std::unique_ptr<PushSender> connect(const std::string& endpoint, int send_timeout_ms,
                                             std::string& error);

  // "" once queued for the collector, else why not (timeout, closed context).
  std::string send(std::span<const std::uint8_t> frame);
  // Waits up to `linger_ms` for queued frames to leave, then closes.
  void close(int linger_ms);

  std::uint64_t frames() const { return frames_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  PushSender(void* context, void* socket, std::string endpoint, int timeout_ms);

  void* context_ = nullptr;
  void* socket_ = nullptr;
  std::string endpoint_;
  int timeout_ms_ = 0;
  std::uint64_t frames_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace stallwatch::collector
