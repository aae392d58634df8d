// SPDX-License-Identifier: MIT
#include "sender.h"

#include <zmq.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <utility>

#include "curve_client.h"
#include "diagnostics.h"
#include "proc_io.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kNsPerMs = 1'000'000;
constexpr std::int64_t kRecalibrationNs = 200 * kNsPerMs;
constexpr std::int64_t kConnectGraceNs = 2000 * kNsPerMs;

}  // namespace

Sender::Sender(const AgentConfig& config, SourceInfo source, BufferRegistry& registry,
               const NameTable& names, AgentCounters& counters, Wakeup& wakeup, FlushSignal& flush,
               const std::atomic<DeviceSource>& device_source)
    : registry_(registry),
      counters_(counters),
      wakeup_(wakeup),
      flush_(flush),
      device_source_(device_source),
      clock_(ProcessClock::instance()),
      encoder_(names, config.batch_events),
      flush_interval_ns_(config.flush_interval_ms * kNsPerMs),
      heartbeat_ns_(config.heartbeat_ms * kNsPerMs),
      send_hwm_(static_cast<int>(config.send_hwm)),
      linger_ms_(static_cast<int>(config.linger_ms)),
      config_(config) {
  encoder_.set_source(std::move(source));
  buffers_.reserve(64);
  retiring_.reserve(64);
}

Sender::~Sender() {
  delivery_.detach();
  if (socket_ != nullptr) zmq_close(socket_);
  if (context_ != nullptr) zmq_ctx_term(context_);
}

int Sender::open(const std::string& endpoint) noexcept {
  context_ = zmq_ctx_new();
  if (context_ == nullptr) {
    report_problem("cannot create a ZeroMQ context: %s", zmq_strerror(errno));
    return SW_ERR_TRANSPORT;
  }
  socket_ = zmq_socket(context_, ZMQ_PUSH);
  if (socket_ == nullptr) {
    report_problem("cannot create a ZeroMQ socket: %s", zmq_strerror(errno));
    return SW_ERR_TRANSPORT;
  }
  const int immediate = 1;
  if (zmq_setsockopt(socket_, ZMQ_IMMEDIATE, &immediate, sizeof(immediate)) != 0 ||
      zmq_setsockopt(socket_, ZMQ_SNDHWM, &send_hwm_, sizeof(send_hwm_)) != 0 ||
      zmq_setsockopt(socket_, ZMQ_LINGER, &linger_ms_, sizeof(linger_ms_)) != 0) {
    report_problem("cannot configure the ZeroMQ socket: %s", zmq_strerror(errno));
    return SW_ERR_TRANSPORT;
  }
  if (const int rc = configure_curve_client(socket_, config_); rc != SW_OK) return rc;
  if (linger_ms_ > 0 && !delivery_.attach(context_, socket_)) {
    report_problem("cannot monitor the ZeroMQ socket; delivery at exit is unconfirmed");
  }
  if (zmq_connect(socket_, endpoint.c_str()) != 0) {
    report_problem("cannot connect to collector endpoint '%s': %s", endpoint.c_str(),
                   zmq_strerror(errno));
    return SW_ERR_TRANSPORT;
  }
  return SW_OK;
}

int Sender::start() noexcept {
  // The sender never handles the host's signals.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  const int rc = pthread_create(&thread_, nullptr, &Sender::thread_main, this);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != 0) {
    report_problem("cannot start the sender thread: error %d", rc);
    return SW_ERR_INTERNAL;
  }
  thread_started_ = true;
  return SW_OK;
}

void Sender::stop() noexcept {
  if (!thread_started_) return;
  stop_requested_.store(true, std::memory_order_release);
  wakeup_.notify();
  pthread_join(thread_, nullptr);
  thread_started_ = false;
}

void Sender::abandon() noexcept {
  thread_started_ = false;
  delivery_.abandon();
  socket_ = nullptr;
  context_ = nullptr;
}

void Sender::sample_proc_io(std::uint16_t cat, std::uint16_t rchar, std::uint16_t read_bytes,
                            std::uint32_t tid) noexcept {
  proc_io_ = cat != 0 && rchar != 0 && read_bytes != 0;
  proc_io_cat_ = cat;
  proc_io_rchar_ = rchar;
  proc_io_read_bytes_ = read_bytes;
  proc_io_tid_ = tid;
}

void Sender::add_proc_io(std::int64_t now) {
  if (!proc_io_ || now < next_proc_io_ns_) return;
  next_proc_io_ns_ = now + heartbeat_ns_;
  ProcIo io;
  if (!read_proc_io(&io)) return;
  for (const auto& [name, value] :
       {std::pair{proc_io_rchar_, io.rchar}, std::pair{proc_io_read_bytes_, io.read_bytes}}) {
    const Record record{
        now, value, 0, proc_io_tid_, proc_io_cat_, name, RecordKind::kCounter, 0, kRecordTimeIsNs};
    if (!encoder_.add(record)) counters_.lost_in_send.fetch_add(1, std::memory_order_relaxed);
  }
}

void* Sender::thread_main(void* self) noexcept {
  pthread_setname_np(pthread_self(), "stallwatch-send");
  static_cast<Sender*>(self)->run();
  return nullptr;
}

void Sender::run() noexcept {
  last_attempt_ns_ = clock_.now_ns();
  next_recalibration_ns_ = last_attempt_ns_ + kRecalibrationNs;
  connect_deadline_ns_ = last_attempt_ns_ + kConnectGraceNs;
  for (;;) {
    const bool stopping = stop_requested_.load(std::memory_order_acquire);
    const std::uint32_t requested = flush_.requested.load(std::memory_order_acquire);
    bool drained = true;
    try {
      drained = cycle(stopping);
    } catch (...) {
      counters_.lost_in_send.fetch_add(encoder_.size(), std::memory_order_relaxed);
      encoder_.reset();
      report_problem("out of memory while encoding a batch; its events were dropped");
    }
    if (drained && requested != flush_.completed.load(std::memory_order_relaxed)) {
      flush_.completed.store(requested, std::memory_order_release);
      futex_wake_all(flush_.completed);
    }
    if (stopping) break;
    delivery_.poll();
    wakeup_.wait_for(flush_interval_ns_);
  }
  if (sending_ && linger_ms_ > 0 && counters_.batches_sent.load(std::memory_order_relaxed) > 0) {
    const int unread = delivery_.wait(linger_ms_);
    if (unread > 0) {
      report_problem(
          "the collector had not read the last %d bytes after %d ms (STALLWATCH_LINGER_MS); "
          "the events in them may be lost",
          unread, linger_ms_);
    }
  }
  delivery_.detach();
  zmq_close(socket_);
  socket_ = nullptr;
  zmq_ctx_term(context_);  // bounded by the socket's linger
  context_ = nullptr;
}

bool Sender::ready_to_send(bool final, std::int64_t now) noexcept {
  if (sending_) return true;
  int events = 0;
  std::size_t size = sizeof(events);
  bool writable =
      zmq_getsockopt(socket_, ZMQ_EVENTS, &events, &size) == 0 && (events & ZMQ_POLLOUT) != 0;
  if (!writable && final && linger_ms_ > 0) {
    // Stopping before the first connection: give it up to linger_ms, so that
    // a short-lived process still delivers what it recorded.
    zmq_pollitem_t item{socket_, 0, ZMQ_POLLOUT, 0};
    writable = zmq_poll(&item, 1, linger_ms_) > 0;
  }
  if (writable || final || now >= connect_deadline_ns_) {
    sending_ = true;
    last_attempt_ns_ = now;
  }
  return sending_;
}

bool Sender::cycle(bool final) {
  const std::int64_t now = clock_.now_ns();
  if (now >= next_recalibration_ns_) {
    clock_.recalibrate();
    next_recalibration_ns_ = now + kRecalibrationNs;
  }
  if (!ready_to_send(final, now)) return false;
  registry_.snapshot(buffers_);
  const TimeBase time_base = clock_.time_base();
  add_proc_io(now);
  retiring_.clear();
  for (ThreadBuffer* buffer : buffers_) {
    const bool exited = buffer->exited();
    EventRing& ring = buffer->ring();
    const std::uint64_t limit = ring.pushed();
    std::int64_t& last_ticks = buffer->last_ticks();
    while (ring.popped() < limit) {
      ring.consume(limit, [&](const Record& record) {
        Record event = record;
        if (event.kind == RecordKind::kCall) {
          // A call's start, never before what this thread sent last; its
          // end stays where it was.
          if (event.ts < last_ticks) {
            const std::int64_t end = event.ts + event.region_id;
            event.ts = last_ticks;
            event.region_id = static_cast<std::uint32_t>(std::max<std::int64_t>(end - event.ts, 0));
          }
          last_ticks = event.ts;
        } else if (event.kind != RecordKind::kComplete && (event.reserved & kRecordTimeIsNs) == 0) {
          if (event.ts < last_ticks) event.ts = last_ticks;
          last_ticks = event.ts;
        }
        if (encoder_.add(event)) return true;
        if (!encoder_.empty()) return false;
        counters_.lost_in_send.fetch_add(1, std::memory_order_relaxed);
        return true;  // cannot fit even alone: dropped, counted
      });
      if (ring.popped() < limit) send_batch(time_base, false);
    }
    if (exited && ring.size() == 0) retiring_.push_back(buffer);
  }
  if (!encoder_.empty() || final) {
    send_batch(time_base, final);
  } else if (clock_.now_ns() - last_attempt_ns_ >= heartbeat_ns_) {
    send_batch(time_base, false);
  }
  for (ThreadBuffer* buffer : retiring_)
    registry_.retire(buffer);
  return true;
}

void Sender::send_batch(const TimeBase& time_base, bool final) {
  const std::uint64_t events = encoder_.size();
  const DeviceSource device_source = device_source_.load(std::memory_order_relaxed);
  if (device_source != encoder_.source().device_source) encoder_.set_device_source(device_source);
  encoder_.prepare(time_base);
  const std::uint64_t drops = registry_.dropped() +
                              counters_.refused.load(std::memory_order_relaxed) +
                              counters_.lost_in_send.load(std::memory_order_relaxed) +
                              counters_.device_dropped.load(std::memory_order_relaxed);
  const std::uint64_t reported = counters_.drops_reported.load(std::memory_order_relaxed);
  const std::int64_t sent_at_ns = clock_.now_ns();
  const std::uint64_t seq = counters_.next_seq.fetch_add(1, std::memory_order_relaxed);
  const std::span<const std::uint8_t> frame =
      encoder_.finish(seq, sent_at_ns, drops - reported, final);
  last_attempt_ns_ = sent_at_ns;
  if (zmq_send(socket_, frame.data(), frame.size(), ZMQ_DONTWAIT) >= 0) {
    counters_.drops_reported.store(drops, std::memory_order_relaxed);
    counters_.events_sent.fetch_add(events, std::memory_order_relaxed);
    counters_.batches_sent.fetch_add(1, std::memory_order_relaxed);
    if (events == 0) counters_.heartbeats_sent.fetch_add(1, std::memory_order_relaxed);
  } else {
    const int error = errno;
    counters_.lost_in_send.fetch_add(events, std::memory_order_relaxed);
    counters_.send_failures.fetch_add(1, std::memory_order_release);
    if (error != EAGAIN && error != EINTR) {
      report_problem("ZeroMQ refused a batch: %s", zmq_strerror(error));
    }
  }
  encoder_.reset();
}

}  // namespace stallwatch::agent
