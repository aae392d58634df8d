// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/receiver.h"

namespace stallwatch::collector::detail {

// One ZeroMQ PULL socket of the Receiver and the PAIR end of its monitor:
// the daemon's socket options (RCVHWM, MAXMSGSIZE = wire::kMaxFrameBytes,
// LINGER 0), optionally as a CURVE server, and the connection and handshake
// events turned into ReceiverStats.
//
// Monitor events: ACCEPTED and DISCONNECTED count connections; a failed
// handshake counts by reason: on a CURVE socket a mechanism mismatch is a
// plaintext client, a cryptographic error a client with another server key
// (it cannot open the HELLO box), an authentication failure a key the ZAP
// handler refused; anything else, on either socket, handshake_failed. On a
// CURVE socket a connection closed before its handshake ended counts as
// handshake_failed too: a plaintext client that sees the mismatch first
// hangs up before the collector has read its greeting (and, refused for a
// protocol error, never retries). Handshake events carry no connection, so
// which connection's handshake ended is taken in accept order: the counts
// are exact once the connections involved have closed, their timing
// approximate.
//
// Owned by the Receiver, on its thread. The context outlives it.
class PullSocket {
 public:
  // `curve_secret_key` (Z85): a CURVE server; empty: plaintext (NULL).
  // `zap_domain`: set on a CURVE socket so an allow-list handler is asked.
  PullSocket(void* context, const ReceiverOptions& options, const std::string& curve_secret_key,
             const std::string& zap_domain);
  ~PullSocket();
  PullSocket(const PullSocket&) = delete;
  PullSocket& operator=(const PullSocket&) = delete;

  // Why the socket could not be set up; empty when it was.
  const std::string& error() const { return error_; }
  // Binds `endpoint`; on success returns nullopt and the endpoint as ZeroMQ
  // resolved it (the real port for ":*") in `resolved`.
  std::optional<std::string> bind(const std::string& endpoint, std::string& resolved);

  void* socket() const { return socket_; }
  void* monitor() const { return monitor_; }  // null when no monitor could be attached

  // Passes up to `max` frames that are waiting, without blocking.
  std::size_t receive(std::size_t max, const Receiver::FrameHandler& handler);
  // Counts every monitor event waiting.
  void drain_monitor(ReceiverStats& stats);

 private:
  void* socket_ = nullptr;
  void* monitor_ = nullptr;
  bool curve_ = false;
  std::deque<std::uint32_t> handshaking_;  // CURVE: fds accepted, handshake not ended
  std::string error_;
};

}  // namespace stallwatch::collector::detail
