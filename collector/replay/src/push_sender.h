// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace stallwatch::collector {

// A ZeroMQ PUSH socket connected to a collector, for trace and journal
// replay. Unlike the agent's sender it may wait: a send blocks while the
// collector is slow (the queue is bounded by a high-water mark) and fails only
// after a timeout, so a replay at full speed never drops at the sender.
// ZMQ_IMMEDIATE: nothing is queued before a connection exists.
//
// "Queued" is not "received": ZeroMQ's linger only waits until frames reach
// the kernel, and a PULL socket that is behind (its receive high-water mark
// reached) drops whatever is still in its kernel buffer when an ipc:// peer
// hangs up. So close() first waits until the collector has read every byte
// (SIOCOUTQ of the connection, found through a socket monitor, stays 0), and
// says so when it could not confirm that. Owns its context, socket and monitor;
// one thread.
class PushSender {
 public:
  ~PushSender();
  PushSender(const PushSender&) = delete;
  PushSender& operator=(const PushSender&) = delete;

  static std::unique_ptr<PushSender> connect(const std::string& endpoint, int send_timeout_ms,
                                             std::string& error);

  // "" once queued for the collector, else why not (timeout, closed context).
  std::string send(std::span<const std::uint8_t> frame);
  // Waits up to `timeout_ms` for the collector to read everything sent, then
  // closes. "" when it did; else what may not have arrived and why.
  std::string close(int timeout_ms);

  std::uint64_t frames() const { return frames_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  PushSender(void* context, void* socket, void* monitor, std::string endpoint, int timeout_ms);

  // Reads pending monitor events: the connection's file descriptor, or -1.
  void track_connection();
  // Waits until the connection's unread bytes stay 0; "" or why not.
  std::string wait_until_read(int timeout_ms);

  void* context_ = nullptr;
  void* socket_ = nullptr;
  void* monitor_ = nullptr;  // PAIR end of the socket's monitor, or null
  std::string endpoint_;
  int timeout_ms_ = 0;
  int connection_fd_ = -1;
  std::uint64_t frames_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace stallwatch::collector
