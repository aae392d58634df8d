// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>

#include "engine/event_class.h"

namespace stallwatch::collector::detail {

// The classes the interval metrics are built from: COMPUTE, DEVICE_BUSY,
// FETCH, APP_IO, IO, COMM (bits 0-5 of ClassMask). PIPELINE only structures
// the timeline.
inline constexpr ClassMask kMetricClasses = 0x3F;
inline constexpr int kMaskBins = 64;

// Nanoseconds per combination of metric classes: bin m is the time during
// which exactly the classes in m were covered. Every quantity below is a sum
// of bins, so one histogram per cell answers all of them.
using MaskHistogram = std::array<std::int64_t, kMaskBins>;

// The exact interval quantities of the window metrics (as nanoseconds).
enum Quantity : int {
  kCompute = 0,          // |C|
  kAppIo,                // |A|
  kIo,                   // |I|
  kFetch,                // |F|
  kComm,                 // |M|
  kDevice,               // |D| (real device signal)
  kUnoverlappedAppIo,    // |A \ C|
  kUnoverlappedIo,       // |I \ C|
  kUnoverlappedCompute,  // |C \ (A ∪ I)|
  kUnoverlappedAllIo,    // |(A ∪ I) \ C|
  kFetchNotDevice,       // |F \ D|
  kFetchNotCompute,      // |F \ C| (data stall under the compute proxy)
  kLoaderIo,             // |A ∩ I|
  kQuantityCount
};

// The bytes and calls of the read-like and write-like POSIX and stdio calls
// that ended in a stretch of time (docs/api.md, "I/O volume").
struct IoVolume {
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
  std::int64_t read_ops = 0;
  std::int64_t write_ops = 0;

  void add(const IoVolume& v) {
    read_bytes += v.read_bytes;
    write_bytes += v.write_bytes;
    read_ops += v.read_ops;
    write_ops += v.write_ops;
  }
  void sub(const IoVolume& v) {
    read_bytes -= v.read_bytes;
    write_bytes -= v.write_bytes;
    read_ops -= v.read_ops;
    write_ops -= v.write_ops;
  }
  bool operator==(const IoVolume&) const = default;
};

// The kernel launches paired with their device work in a stretch of time
// (docs/api.md, "Kernel launches"), summed in the cell where the later of
// the two ended.
struct LaunchCounts {
  std::int64_t launches = 0;
  std::int64_t call_ns = 0;   // the launch calls' durations, summed
  std::int64_t delay_ns = 0;  // their launch delays, summed
  std::int64_t short_kernels = 0;
  std::int64_t long_launches = 0;
  std::int64_t late_starts = 0;

  void add(const LaunchCounts& l) {
    launches += l.launches;
    call_ns += l.call_ns;
    delay_ns += l.delay_ns;
    short_kernels += l.short_kernels;
    long_launches += l.long_launches;
    late_starts += l.late_starts;
  }
  void sub(const LaunchCounts& l) {
    launches -= l.launches;
    call_ns -= l.call_ns;
    delay_ns -= l.delay_ns;
    short_kernels -= l.short_kernels;
    long_launches -= l.long_launches;
    late_starts -= l.late_starts;
  }
  bool operator==(const LaunchCounts&) const = default;
};

// One finalized resolution cell of a rank. Durations fit 32 bits because a
// cell is at most 2^32 - 1 ns long (EngineConfig validation).
struct CellData {
  std::array<std::uint32_t, kQuantityCount> ns{};
  std::uint32_t steps = 0;
  std::uint32_t durations = 0;       // steps that have a previous step
  std::int64_t duration_sum_ns = 0;  // sum of those step durations
  double samples = 0;                // batch size in force at each step, summed
  IoVolume io;
  LaunchCounts launch;
};

// A sum of cells (a window, the totals, or not-yet-finalized cells).
struct Sums {
  std::array<std::int64_t, kQuantityCount> ns{};
  std::int64_t steps = 0;
  std::int64_t durations = 0;
  std::int64_t duration_sum_ns = 0;
  double samples = 0;
  IoVolume io;
  LaunchCounts launch;

  void add(const CellData& c);
  void sub(const CellData& c);
  void add(const Sums& s);
};

// Adds the quantities of a histogram to `out`.
void fold(const MaskHistogram& h, std::array<std::int64_t, kQuantityCount>& out);
CellData to_cell(const std::array<std::int64_t, kQuantityCount>& ns);

}  // namespace stallwatch::collector::detail
