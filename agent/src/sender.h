// SPDX-License-Identifier: MIT
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "agent_config.h"
#include "agent_counters.h"
#include "batch_encoder.h"
#include "buffer_registry.h"
#include "delivery_check.h"
#include "name_table.h"
#include "process_clock.h"
#include "stallwatch/source_info.h"
#include "wakeup.h"

namespace stallwatch::agent {

// The background thread that drains every thread buffer, encodes Batches and
// pushes them to the collector over one ZeroMQ PUSH socket.
//
// It wakes every flush_interval_ms, or early through the shared Wakeup (a
// ring filling up, a flush or a stop); sends a batch whenever one is full and
// at the end of each wake; sends a heartbeat (no events) when nothing was
// sent for heartbeat_ms; and recalibrates the clock. When asked, it also
// samples /proc/self/io every heartbeat_ms into the batch as two counters. Sends never block
// (ZMQ_DONTWAIT, ZMQ_IMMEDIATE, bounded HWM): a refused batch counts its
// events as dropped and the next batch reports them. stop() sends a final
// batch and waits at most linger_ms until the collector has read everything
// (DeliveryCheck: queued in the kernel is not received); when it has not, it
// says how many bytes may be lost.
//
// Start-up: ZMQ_IMMEDIATE refuses messages until the connection is up, so
// the sender neither drains nor sends (events wait in the rings, no seq is
// used) until the socket is writable or kConnectGraceNs passed, whichever is
// first; stop() waits at most linger_ms more. After that, unreachable
// collectors cost counted drops as above.
//
// Lifecycle is driven by Agent under its lifecycle lock: open() and start()
// on the starting thread (the socket then belongs to the sender thread),
// stop() to join. After fork the child calls abandon() and never touches the
// thread, socket or context again. Does not own the registry, names,
// counters, wakeup, flush signal or device source.
class Sender {
 public:
  // `device_source` is read before every batch: the declared source may change at run time.
  Sender(const AgentConfig& config, SourceInfo source, BufferRegistry& registry,
         const NameTable& names, AgentCounters& counters, Wakeup& wakeup, FlushSignal& flush,
         const std::atomic<DeviceSource>& device_source);
  ~Sender();
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // Creates the context and socket and connects: SW_OK or SW_ERR_TRANSPORT.
  int open(const std::string& endpoint) noexcept;
  // Starts the thread: SW_OK or SW_ERR_INTERNAL.
  int start() noexcept;
  // Final drain and batch, then closes the socket within linger_ms and joins.
  void stop() noexcept;
  // In a forked child: forget the thread, socket and context without using them.
  void abandon() noexcept;
  // Before start(): sample /proc/self/io every heartbeat period as the
  // counters (cat, rchar) and (cat, read_bytes) of thread `tid`.
  void sample_proc_io(std::uint16_t cat, std::uint16_t rchar, std::uint16_t read_bytes,
                      std::uint32_t tid) noexcept;

 private:
  static void* thread_main(void* self) noexcept;
  void run() noexcept;
  // One drain-and-send pass; false when it was skipped (waiting to connect).
  bool cycle(bool final);
  bool ready_to_send(bool final, std::int64_t now) noexcept;
  // Adds the /proc/self/io counters when they are due.
  void add_proc_io(std::int64_t now);
  void send_batch(const TimeBase& time_base, bool final);

  BufferRegistry& registry_;
  AgentCounters& counters_;
  Wakeup& wakeup_;
  FlushSignal& flush_;
  const std::atomic<DeviceSource>& device_source_;
  ProcessClock& clock_;
  BatchEncoder encoder_;
  std::int64_t flush_interval_ns_;
  std::int64_t heartbeat_ns_;
  int send_hwm_;
  int linger_ms_;
  AgentConfig config_;  // the CURVE keys, for open()
  void* context_ = nullptr;
  void* socket_ = nullptr;
  DeliveryCheck delivery_;
  pthread_t thread_{};
  bool thread_started_ = false;
  std::atomic<bool> stop_requested_{false};
  std::vector<ThreadBuffer*> buffers_;
  std::vector<ThreadBuffer*> retiring_;
  std::int64_t last_attempt_ns_ = 0;
  std::int64_t next_recalibration_ns_ = 0;
  std::int64_t connect_deadline_ns_ = 0;
  bool sending_ = false;
  bool proc_io_ = false;
  std::uint16_t proc_io_cat_ = 0;
  std::uint16_t proc_io_rchar_ = 0;
  std::uint16_t proc_io_read_bytes_ = 0;
  std::uint32_t proc_io_tid_ = 0;
  std::int64_t next_proc_io_ns_ = 0;
};

}  // namespace stallwatch::agent
