// SPDX-License-Identifier: MIT
#pragma once

namespace stallwatch::agent {

// Confirms that the collector has read what the sender's PUSH socket wrote.
//
// ZeroMQ's linger only waits until frames reach the kernel. A collector whose
// PULL socket is behind (its receive high-water mark reached) drops whatever
// is still in the kernel buffer of an ipc:// connection when the agent's
// process exits and the connection closes. So before closing, the sender waits
// until the connection's unread bytes (SIOCOUTQ of the descriptor, found
// through a ZeroMQ socket monitor) stay 0 for a moment, at most a bounded
// time. The collector's replay sender does the same (collector/replay); the
// agent keeps its own copy because libstallwatch links nothing of the
// collector.
//
// Used by the sender thread only; attach() on the thread that opens the
// socket, before it connects. Owns the monitor's PAIR socket, not the context
// or the watched socket.
class DeliveryCheck {
 public:
  DeliveryCheck() = default;
  ~DeliveryCheck();
  DeliveryCheck(const DeliveryCheck&) = delete;
  DeliveryCheck& operator=(const DeliveryCheck&) = delete;

  // Starts monitoring `socket`; false when ZeroMQ cannot (then wait() returns -1).
  bool attach(void* context, void* socket) noexcept;
  // Waits up to `timeout_ms` until the collector has read everything written
  // on the current connection: 0 when confirmed (or no connection is open),
  // the bytes still unread when the time ran out, -1 when it cannot tell.
  int wait(int timeout_ms) noexcept;
  // Reads the monitor's pending events (the connection's descriptor). Call it
  // now and then: ZeroMQ's I/O thread blocks once the monitor queue is full.
  void poll() noexcept;
  // Stops monitoring and closes the PAIR socket; before the context ends.
  void detach() noexcept;
  // In a forked child: forget the sockets without using them.
  void abandon() noexcept;

 private:
  void* socket_ = nullptr;
  void* monitor_ = nullptr;
  int connection_fd_ = -1;
};

}  // namespace stallwatch::agent
