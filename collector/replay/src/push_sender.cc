// SPDX-License-Identifier: MIT
#include "push_sender.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <zmq.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace stallwatch::collector {

namespace {
constexpr int kHighWaterMark = 10000;  // frames queued before send() waits
// The unread byte count must stay 0 this long before the connection is closed:
// longer than ZeroMQ's I/O thread takes to write what it still holds.
constexpr auto kSettled = std::chrono::milliseconds(200);
constexpr auto kPollEvery = std::chrono::milliseconds(10);

std::string monitor_address(const void* socket) {
  return "inproc://stallwatch-push-monitor-" +
         std::to_string(reinterpret_cast<std::uintptr_t>(socket));
}

// Bytes written to `fd` that the peer has not read yet (unix sockets) or not
// acknowledged (TCP); -1 if the kernel does not say.
int unread_bytes(int fd) {
  int queued = 0;
  return ioctl(fd, SIOCOUTQ, &queued) == 0 ? queued : -1;
}
}  // namespace

PushSender::PushSender(void* context, void* socket, void* monitor, std::string endpoint,
                       int timeout_ms)
    : context_(context),
      socket_(socket),
      monitor_(monitor),
      endpoint_(std::move(endpoint)),
      timeout_ms_(timeout_ms) {}

PushSender::~PushSender() {
  close(0);
}

std::unique_ptr<PushSender> PushSender::connect(const std::string& endpoint, int send_timeout_ms,
                                                std::string& error) {
  void* context = zmq_ctx_new();
  if (context == nullptr) {
    error = std::string("cannot create a ZeroMQ context: ") + zmq_strerror(zmq_errno());
    return nullptr;
  }
  void* socket = zmq_socket(context, ZMQ_PUSH);
  if (socket == nullptr) {
    error = std::string("cannot create a PUSH socket: ") + zmq_strerror(zmq_errno());
    zmq_ctx_term(context);
    return nullptr;
  }
  const int hwm = kHighWaterMark;
  const int immediate = 1;
  const int linger = 0;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(socket, ZMQ_IMMEDIATE, &immediate, sizeof immediate);
  zmq_setsockopt(socket, ZMQ_SNDTIMEO, &send_timeout_ms, sizeof send_timeout_ms);
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  // Without a monitor close() cannot confirm delivery and says so.
  void* monitor = nullptr;
  const std::string address = monitor_address(socket);
  if (zmq_socket_monitor(socket, address.c_str(), ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED) ==
      0) {
    monitor = zmq_socket(context, ZMQ_PAIR);
    if (monitor != nullptr && zmq_connect(monitor, address.c_str()) != 0) {
      zmq_close(monitor);
      monitor = nullptr;
    }
  }
  if (zmq_connect(socket, endpoint.c_str()) != 0) {
    error = "cannot connect to " + endpoint + ": " + zmq_strerror(zmq_errno());
    if (monitor != nullptr) zmq_close(monitor);
    zmq_close(socket);
    zmq_ctx_term(context);
    return nullptr;
  }
  return std::unique_ptr<PushSender>(
      new PushSender(context, socket, monitor, endpoint, send_timeout_ms));
}

std::string PushSender::send(std::span<const std::uint8_t> frame) {
  if (socket_ == nullptr) return "the socket is closed";
  for (;;) {
    if (zmq_send(socket_, frame.data(), frame.size(), 0) >= 0) {
      ++frames_;
      bytes_ += frame.size();
      return {};
    }
    const int e = zmq_errno();
    if (e == EINTR) continue;
    if (e == EAGAIN) {
      return "no collector took data at " + endpoint_ + " for " +
             std::to_string(timeout_ms_ / 1000) +
             " s (is stallwatchd running and listening there?)";
    }
    return "send to " + endpoint_ + " failed: " + zmq_strerror(e);
  }
}

void PushSender::track_connection() {
  if (monitor_ == nullptr) return;
  for (;;) {
    zmq_msg_t event;
    zmq_msg_init(&event);
    if (zmq_msg_recv(&event, monitor_, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&event);
      return;
    }
    // Frame 1: event (16 bits) and value (32 bits, the fd); frame 2: address.
    std::uint16_t id = 0;
    std::uint32_t value = 0;
    if (zmq_msg_size(&event) >= 6) {
      std::memcpy(&id, zmq_msg_data(&event), sizeof id);
      std::memcpy(&value, static_cast<const char*>(zmq_msg_data(&event)) + 2, sizeof value);
    }
    const bool more = zmq_msg_more(&event) != 0;
    zmq_msg_close(&event);
    if (more) {
      zmq_msg_t address;
      zmq_msg_init(&address);
      zmq_msg_recv(&address, monitor_, 0);
      zmq_msg_close(&address);
    }
    if (id == ZMQ_EVENT_CONNECTED) connection_fd_ = static_cast<int>(value);
    if (id == ZMQ_EVENT_DISCONNECTED) connection_fd_ = -1;
  }
}

std::string PushSender::wait_until_read(int timeout_ms) {
  if (monitor_ == nullptr)
    return "no socket monitor, so delivery of the last frames is unconfirmed";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto settled_since = std::chrono::steady_clock::now();
  int unread = 0;
  for (;;) {
    track_connection();
    const auto now = std::chrono::steady_clock::now();
    if (connection_fd_ < 0) {
      return "the connection to " + endpoint_ +
             " closed before the collector confirmed reading everything";
    }
    unread = unread_bytes(connection_fd_);
    if (unread != 0) settled_since = now;
    if (unread == 0 && now - settled_since >= kSettled) return {};
    if (now >= deadline) {
      return unread < 0 ? "the kernel does not report the connection's unread bytes"
                        : "the collector at " + endpoint_ + " had not read the last " +
                              std::to_string(unread) + " bytes after " +
                              std::to_string(timeout_ms / 1000) + " s";
    }
    std::this_thread::sleep_for(kPollEvery);
  }
}

std::string PushSender::close(int timeout_ms) {
  std::string problem;
  if (socket_ != nullptr && frames_ > 0 && timeout_ms > 0) problem = wait_until_read(timeout_ms);
  if (monitor_ != nullptr) {
    zmq_socket_monitor(socket_, nullptr, 0);
    zmq_close(monitor_);
    monitor_ = nullptr;
  }
  if (socket_ != nullptr) {
    const int linger = problem.empty() ? 1000 : 0;
    zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(socket_);
    socket_ = nullptr;
  }
  if (context_ != nullptr) {
    zmq_ctx_term(context_);
    context_ = nullptr;
  }
  return problem;
}

}  // namespace stallwatch::collector
