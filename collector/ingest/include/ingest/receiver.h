// SPDX-License-Identifier: MIT
#pragma once

// The ingest socket of stallwatchd. The simplest wiring, one thread (the
// daemon splits the same steps over a receive and an apply thread, see
// collector/daemon/src/ingest_loop.h):
//
//   Receiver receiver;                                  // ReceiverOptions{} defaults
//   for (const std::string& endpoint : endpoints) {     // wire::kDefaultTcpEndpoint,
//     if (auto error = receiver.bind(endpoint)) {       // default_ipc_endpoint(), --ingest
//       return fail(*error);  // "tcp://127.0.0.1:5557: Address already in use"
//     }
//   }
//   BatchDecoder decoder(names, &engine_mutex);         // ingest/batch_decoder.h
//   DecodedBatch batch;
//   while (running) {
//     receiver.receive(100, [&](std::span<const std::uint8_t> frame) {
//       if (decoder.decode(frame, batch)) return;  // invalid: counted in decoder.stats()
//       std::lock_guard lock(engine_mutex);
//       engine.ingest(batch, now_ns());
//     });
//   }
//
// Endpoints for agents on other hosts take only CURVE clients: call
// enable_curve() with the collector's secret key (and, optionally, the
// allow-list of agents' public keys) once, then bind_curve() for each.
//
// receiver.endpoints() lists what was bound (the real port for "tcp://host:*"),
// receiver.stats() the connections accepted, closed and refused in the
// handshake, decoder.stats() the frames, bytes and events received and the
// invalid frames by reason.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/handshake_rejection.h"

namespace stallwatch::collector {

// Receiver settings; the defaults suit stallwatchd.
struct ReceiverOptions {
  int receive_hwm = 100;                     // frames queued per connection (ZMQ_RCVHWM)
  std::size_t max_frames_per_receive = 256;  // per receive() call
};

// The CURVE side of the Receiver (docs/design.md, "CURVE").
struct CurveServerKeys {
  std::string secret_key;  // the collector's secret key, Z85 (40 characters)
  // Agents' public keys, Z85. Empty: every client that has the collector's
  // public key is admitted; otherwise only these (a ZAP handler decides).
  std::vector<std::string> allowed_keys;
};

// Connection events seen by the Receiver's socket monitors.
struct ReceiverStats {
  // Every connection, those refused in the handshake included.
  std::uint64_t connections_accepted = 0;
  // Peers that went away, including those cut for a frame over kMaxFrameBytes
  // and those refused in the handshake.
  std::uint64_t connections_closed = 0;
  // Connections refused in the handshake, by HandshakeRejection. A client
  // that keeps retrying (ZeroMQ reconnects every 100 ms) counts every try.
  HandshakeRejections rejected{};
};

// Receiver: the collector's ZeroMQ PULL sockets, where agents PUSH batches.
// One plaintext socket bound on any number of tcp:// and ipc:// endpoints
// (bind()), and one CURVE socket for endpoints reached from other hosts
// (bind_curve()): separate sockets, so local agents need no keys. On the
// CURVE socket a client without CURVE, with another server key or, when an
// allow-list is set, with a key not on it never gets a frame through; each
// refusal is counted by reason from the socket monitors. ipc paths are
// prepared first (prepare_ipc_endpoint: parent directory 0700, stale socket
// removed, a live one refused). Bounded memory: ZMQ_RCVHWM frames queued per
// connected agent, ZMQ_MAXMSGSIZE = wire::kMaxFrameBytes, so ZeroMQ drops a
// larger frame and disconnects its sender before it is ever buffered whole;
// such a drop shows only as a closed connection in stats().
//
// Frames are handed over as raw bytes, valid during the handler call only;
// the Receiver neither validates nor counts them (BatchDecoder does). Every
// message part is a frame of its own.
//
// With an allow-list, the ZAP requests of CURVE handshakes are answered
// inside receive() too: a handshake waits for the next receive() call.
//
// Thread-confined: created, used and destroyed by one thread (stallwatchd's
// ingest receive thread). Errors are returned as values; nothing throws, except what
// the handler itself throws, which propagates to the caller of receive().
class Receiver {
 public:
  using FrameHandler = std::function<void(std::span<const std::uint8_t> frame)>;

  explicit Receiver(ReceiverOptions options = {});
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  // Binds one more plaintext endpoint. Returns nullopt on success, else
  // "<endpoint>: <reason>". "tcp://127.0.0.1:*" binds a free port.
  std::optional<std::string> bind(std::string_view endpoint);

  // Sets up the CURVE socket, once, before bind_curve(). Returns nullopt on
  // success, else why (libzmq without CURVE, a malformed key).
  std::optional<std::string> enable_curve(const CurveServerKeys& keys);
  // Binds one more CURVE endpoint (after enable_curve()), as bind().
  std::optional<std::string> bind_curve(std::string_view endpoint);

  // Bound endpoints as resolved by ZeroMQ (the real port for ":*"), in the
  // order bound; curve_endpoints() the CURVE ones among them.
  const std::vector<std::string>& endpoints() const { return endpoints_; }
  const std::vector<std::string>& curve_endpoints() const { return curve_endpoints_; }

  // Waits up to `timeout_ms` (-1: forever, 0: not at all) for frames, then
  // passes each available frame, up to max_frames_per_receive, to `handler`.
  // Returns how many it passed: 0 on timeout, when only connection events
  // arrived, or when a signal interrupted the wait (the caller checks its stop
  // flag and calls again).
  std::size_t receive(int timeout_ms, const FrameHandler& handler);

  const ReceiverStats& stats() const { return stats_; }
  // The last client the allow-list refused: "<Z85 key> from <address>", or "".
  const std::string& last_refused_client() const;

 private:
  struct Sockets;

  ReceiverOptions options_;
  void* context_ = nullptr;
  std::unique_ptr<Sockets> sockets_;
  std::string setup_error_;  // why the context could not be created, if it could not
  std::vector<std::string> endpoints_;
  std::vector<std::string> curve_endpoints_;
  ReceiverStats stats_;
};

}  // namespace stallwatch::collector
