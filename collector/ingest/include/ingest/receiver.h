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
// receiver.endpoints() lists what was bound (the real port for "tcp://host:*"),
// receiver.stats() the connections accepted and closed, decoder.stats() the
// frames, bytes and events received and the invalid frames by reason.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stallwatch::collector {

// Receiver settings; the defaults suit stallwatchd.
struct ReceiverOptions {
  int receive_hwm = 100;                     // frames queued per connection (ZMQ_RCVHWM)
  std::size_t max_frames_per_receive = 256;  // per receive() call
};

// Connection events seen by the Receiver's socket monitor.
struct ReceiverStats {
  std::uint64_t connections_accepted = 0;
  // Peers that went away, including those cut for a frame over kMaxFrameBytes.
  std::uint64_t connections_closed = 0;
};

// Receiver: the collector's ZeroMQ PULL socket, where agents PUSH batches.
// One socket bound on any number of tcp:// and ipc:// endpoints. ipc paths are
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

  // Binds one more endpoint. Returns nullopt on success, else
  // "<endpoint>: <reason>". "tcp://127.0.0.1:*" binds a free port.
  std::optional<std::string> bind(std::string_view endpoint);

  // Bound endpoints as resolved by ZeroMQ (the real port for ":*").
  const std::vector<std::string>& endpoints() const { return endpoints_; }

  // Waits up to `timeout_ms` (-1: forever, 0: not at all) for frames, then
  // passes each available frame, up to max_frames_per_receive, to `handler`.
  // Returns how many it passed: 0 on timeout, when only connection events
  // arrived, or when a signal interrupted the wait (the caller checks its stop
  // flag and calls again).
  std::size_t receive(int timeout_ms, const FrameHandler& handler);

  const ReceiverStats& stats() const { return stats_; }

 private:
  void drain_monitor();

  ReceiverOptions options_;
  void* context_ = nullptr;
  void* socket_ = nullptr;
  void* monitor_ = nullptr;  // PAIR end of the socket monitor: connection events
  std::string setup_error_;  // why the sockets could not be created, if they could not
  std::vector<std::string> endpoints_;
  ReceiverStats stats_;
};

}  // namespace stallwatch::collector
