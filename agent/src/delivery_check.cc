// SPDX-License-Identifier: MIT
#include "delivery_check.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <time.h>
#include <zmq.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kNsPerMs = 1'000'000;
// The unread byte count must stay 0 this long: longer than ZeroMQ's I/O thread
// takes to write the last frame it still holds.
constexpr std::int64_t kSettledNs = 100 * kNsPerMs;
constexpr std::int64_t kPollEveryNs = 5 * kNsPerMs;

std::int64_t monotonic_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

void sleep_ns(std::int64_t ns) noexcept {
  timespec t{0, static_cast<long>(ns)};
  nanosleep(&t, nullptr);
}

// Bytes written to `fd` that the peer has not read (unix sockets) or not
// acknowledged (TCP); -1 if the kernel does not say.
int unread_bytes(int fd) noexcept {
  int queued = 0;
  return ioctl(fd, SIOCOUTQ, &queued) == 0 ? queued : -1;
}

}  // namespace

DeliveryCheck::~DeliveryCheck() {
  detach();
}

bool DeliveryCheck::attach(void* context, void* socket) noexcept {
  char address[64];
  std::snprintf(address, sizeof address, "inproc://stallwatch-agent-monitor-%p", socket);
  if (zmq_socket_monitor(socket, address, ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED) != 0) {
    return false;
  }
  monitor_ = zmq_socket(context, ZMQ_PAIR);
  if (monitor_ == nullptr || zmq_connect(monitor_, address) != 0) {
    if (monitor_ != nullptr) zmq_close(monitor_);
    monitor_ = nullptr;
    zmq_socket_monitor(socket, nullptr, 0);
    return false;
  }
  socket_ = socket;
  return true;
}

void DeliveryCheck::poll() noexcept {
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

int DeliveryCheck::wait(int timeout_ms) noexcept {
  if (monitor_ == nullptr) return -1;
  const std::int64_t start = monotonic_ns();
  const std::int64_t deadline = start + timeout_ms * kNsPerMs;
  std::int64_t settled_since = start;
  for (;;) {
    poll();
    if (connection_fd_ < 0) return 0;  // nothing open: nothing more can be read
    const int unread = unread_bytes(connection_fd_);
    const std::int64_t now = monotonic_ns();
    if (unread != 0) settled_since = now;
    if (unread == 0 && now - settled_since >= kSettledNs) return 0;
    if (now >= deadline) return unread;
    sleep_ns(kPollEveryNs);
  }
}

void DeliveryCheck::detach() noexcept {
  if (monitor_ == nullptr) return;
  zmq_socket_monitor(socket_, nullptr, 0);
  zmq_close(monitor_);
  monitor_ = nullptr;
  socket_ = nullptr;
  connection_fd_ = -1;
}

void DeliveryCheck::abandon() noexcept {
  monitor_ = nullptr;
  socket_ = nullptr;
  connection_fd_ = -1;
}

}  // namespace stallwatch::agent
