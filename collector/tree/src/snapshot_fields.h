// SPDX-License-Identifier: MIT
#pragma once

// The field list of every struct a NodeReport carries, in wire order. Both
// the writer and the reader walk these lists, so a field added to one of
// the snapshot structs travels once it is named here (and kReportVersion is
// raised). `io(x)` is called for each field; the codec knows integers,
// doubles, enumerations, strings, vectors, arrays and the structs below.
// `io.version()` is the report's version: a field added in version N is
// visited only when it is at least N, so a head still reads older reports.

#include <cstdint>
#include <type_traits>

#include "engine/snapshot.h"
#include "tree/comm_calls_delta.h"

namespace stallwatch::collector::detail {

template <class T>
struct Fields;

// Largest valid value of each enumeration on the wire; a reader refuses more.
template <class E>
constexpr std::uint8_t enum_max();
template <>
constexpr std::uint8_t enum_max<RankState>() {
  return static_cast<std::uint8_t>(RankState::kFinished);
}
template <>
constexpr std::uint8_t enum_max<Verdict>() {
  return static_cast<std::uint8_t>(Verdict::kWaitingForPeers);
}
template <>
constexpr std::uint8_t enum_max<Cause>() {
  return static_cast<std::uint8_t>(Cause::kLaunchBound);
}
template <>
constexpr std::uint8_t enum_max<DeviceSignal>() {
  return static_cast<std::uint8_t>(DeviceSignal::kTrace);
}
template <>
constexpr std::uint8_t enum_max<ProcessRole>() {
  return static_cast<std::uint8_t>(ProcessRole::kWorker);
}
template <>
constexpr std::uint8_t enum_max<DeviceSource>() {
  return static_cast<std::uint8_t>(DeviceSource::kNvml);
}

template <>
struct Fields<WindowMetrics> {
  template <class Io, class T>
  static void visit(Io& io, T& w) {
    io(w.window_ns), io(w.start_ns), io(w.end_ns), io(w.wall_seconds), io(w.compute_seconds);
    io(w.app_io_seconds), io(w.io_seconds), io(w.fetch_seconds), io(w.comm_seconds);
    io(w.unoverlapped_app_io_seconds), io(w.unoverlapped_io_seconds);
    io(w.unoverlapped_compute_seconds), io(w.unoverlapped_all_io_seconds);
    io(w.device_busy_seconds), io(w.data_stall_seconds), io(w.overlap_ratio);
    io(w.device_idle_ratio), io(w.data_stall_ratio), io(w.steps), io(w.step_seconds_p50);
    io(w.step_seconds_p95), io(w.steps_per_second), io(w.samples_per_second), io(w.verdict);
    io(w.loader_io_seconds), io(w.loader_io_ratio), io(w.peer_wait_seconds), io(w.io_captured);
    io(w.cause);
    io(w.read_bytes_per_second), io(w.write_bytes_per_second), io(w.read_ops_per_second);
    io(w.write_ops_per_second);
    io(w.launches), io(w.launch_seconds), io(w.launch_delay_seconds), io(w.short_kernels);
    io(w.long_launches), io(w.late_launch_starts), io(w.launch_idle_ratio);
    io(w.launches_captured);
  }
};

template <>
struct Fields<Counters> {
  template <class Io, class T>
  static void visit(Io& io, T& c) {
    io(c.events_received), io(c.batches_received), io(c.agent_dropped), io(c.lost_batches);
    io(c.late_events), io(c.unpaired_events);
  }
};

template <>
struct Fields<ProcessSnapshot> {
  template <class Io, class T>
  static void visit(Io& io, T& p) {
    io(p.host), io(p.pid), io(p.ppid), io(p.role), io(p.device_source), io(p.agent_version);
    io(p.start_ns), io(p.last_seen_ns), io(p.watermark_ns), io(p.finished), io(p.open_regions);
    io(p.counters);
  }
};

template <>
struct Fields<GpuCounterReading> {
  template <class Io, class T>
  static void visit(Io& io, T& g) {
    io(g.latest), io(g.latest_ns), io(g.means);
  }
};

template <>
struct Fields<GpuDeviceCounters> {
  template <class Io, class T>
  static void visit(Io& io, T& d) {
    io(d.device), io(d.counters);
  }
};

template <>
struct Fields<GpuCounters> {
  template <class Io, class T>
  static void visit(Io& io, T& g) {
    io(g.devices), io(g.ignored_samples);
  }
};

template <>
struct Fields<FinalizedTotals> {
  template <class Io, class T>
  static void visit(Io& io, T& f) {
    io(f.horizon_ns), io(f.wall_ns), io(f.compute_ns), io(f.app_io_ns), io(f.io_ns);
    io(f.fetch_ns), io(f.comm_ns), io(f.unoverlapped_app_io_ns), io(f.unoverlapped_io_ns);
    io(f.unoverlapped_compute_ns), io(f.unoverlapped_all_io_ns), io(f.device_busy_ns);
    io(f.data_stall_ns), io(f.steps), io(f.samples), io(f.step_durations);
    io(f.step_duration_sum_ns), io(f.step_buckets);
    io(f.read_bytes), io(f.write_bytes), io(f.read_ops), io(f.write_ops);
  }
};

template <>
struct Fields<CommCall> {
  template <class Io, class T>
  static void visit(Io& io, T& c) {
    io(c.start_ns), io(c.end_ns), io(c.step), io(c.ordinal);
  }
};

template <>
struct Fields<FileIoEntry> {
  template <class Io, class T>
  static void visit(Io& io, T& f) {
    io(f.path), io(f.io_ns), io(f.read_bytes), io(f.write_bytes), io(f.ops);
  }
};

template <>
struct Fields<TopFiles> {
  template <class Io, class T>
  static void visit(Io& io, T& t) {
    io(t.window_ns), io(t.files), io(t.other);
  }
};

template <>
struct Fields<KernelEntry> {
  template <class Io, class T>
  static void visit(Io& io, T& k) {
    io(k.name), io(k.device_ns), io(k.count);
  }
};

template <>
struct Fields<TopKernels> {
  template <class Io, class T>
  static void visit(Io& io, T& t) {
    io(t.window_ns), io(t.kernels), io(t.other);
  }
};

// A rank's comm_calls travel after it, as a CommCallsDelta.
template <>
struct Fields<CommCallsDelta> {
  template <class Io, class T>
  static void visit(Io& io, T& d) {
    io(d.base), io(d.drop), io(d.front), io(d.keep), io(d.tail);
  }
};

template <>
struct Fields<RankSnapshot> {
  template <class Io, class T>
  static void visit(Io& io, T& r) {
    io(r.job), io(r.rank), io(r.host), io(r.clock_offset_ns), io(r.state), io(r.device_source);
    io(r.start_ns), io(r.end_ns), io(r.last_seen_ns), io(r.watermark_ns), io(r.epoch);
    io(r.step), io(r.verdict), io(r.cause), io(r.windows), io(r.counters), io(r.processes);
    io(r.gpu_counters), io(r.finalized);
    if (io.version() >= 5) io(r.top_files);  // every entry, whatever its window
    if (io.version() >= 6) io(r.top_kernels);
  }
};

}  // namespace stallwatch::collector::detail
