// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

#include "engine/snapshot.h"
#include "tree/comm_calls_delta.h"

namespace stallwatch::collector {

struct UpstreamOptions {
  std::string endpoint;    // tcp://HOST:PORT or ipc://PATH of the head's tree endpoint
  std::string server_key;  // the head's public key (Z85); empty: plaintext
  std::string public_key;  // this node's key pair (Z85), with server_key
  std::string secret_key;
  std::string node;          // this node's name in the head's views
  std::string http_address;  // this node's API base URL, for the head's timeline proxy
  int send_hwm = 64;         // report frames queued at most (ZMQ_SNDHWM)
};

struct UpstreamStats {
  std::uint64_t reports_sent = 0;    // frames handed to ZeroMQ
  std::uint64_t reports_unsent = 0;  // frames dropped: head unreachable or queue full
  std::uint64_t bytes_sent = 0;
};

// A node daemon's sender to its head (docs/design.md, "Collector tree"): a
// ZeroMQ PUSH socket, a CURVE client when a server key is given, that sends
// the reports of each tick's snapshot. It never waits: the socket queues
// only to a connected head (ZMQ_IMMEDIATE) and at most send_hwm frames; a
// frame that cannot be queued at once is dropped and counted as unsent. The
// head gets every rank again on the next tick, so nothing is resent; the
// ranks' COMM calls go as deltas against the last ones sent (SentCommCalls),
// whole again after a frame that was not sent.
//
// Thread-confined: created, used and destroyed by the daemon's tick thread
// (start() on the main thread before the tick thread runs).
class UpstreamSender {
 public:
  explicit UpstreamSender(UpstreamOptions options);
  ~UpstreamSender();
  UpstreamSender(const UpstreamSender&) = delete;
  UpstreamSender& operator=(const UpstreamSender&) = delete;

  // Creates and connects the socket. Returns "" or why it could not.
  std::string start();
  // Encodes and sends every rank of `snapshot`, without blocking.
  void send(const Snapshot& snapshot);

  const UpstreamOptions& options() const { return options_; }
  const UpstreamStats& stats() const { return stats_; }

 private:
  UpstreamOptions options_;
  void* context_ = nullptr;
  void* socket_ = nullptr;
  UpstreamStats stats_;
  SentCommCalls calls_;
};

}  // namespace stallwatch::collector
