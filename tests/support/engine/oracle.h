// SPDX-License-Identifier: MIT
#pragma once

// A brute-force model of the engine's semantics for one rank, written
// independently of it: a class mask per microsecond, regions painted one
// microsecond at a time, no cells, histograms, maps or running sums. It
// applies the same rules — clipping at the finalized horizon, open regions up
// to their source's watermark as of each horizon move, step fallback, batch
// size in force — to the same arrival sequence.

#include <cstdint>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

#include "engine/decoded_batch.h"
#include "engine/engine_config.h"
#include "engine/name_table.h"
#include "engine/snapshot.h"

namespace stallwatch::collector::testing {

class Oracle {
 public:
  Oracle(const EngineConfig& config, const NameTable& names);

  // `b` received at `now_ns` on the collector's clock.
  void ingest(const DecodedBatch& b, std::int64_t now_ns);
  // A tick at `now_ns`: a rank whose sources have all finished for the
  // lateness is final up to its end, rounded up to the grid.
  void settle(std::int64_t now_ns);
  // The windows (configured, then totals) the engine should report now.
  std::vector<WindowMetrics> windows() const;
  // The cumulative sums over the finalized time [start, horizon) the engine
  // should report now, device busy and data stall counted with the device
  // signal in force at each horizon move.
  FinalizedTotals finalized() const;
  // The top files by I/O time of each configured window and the totals the
  // engine should report now (docs/api.md, "Top files by I/O time"): the
  // calls that count summed per cell of their end, a finalized cell (before
  // the horizon) cut to its top_files_per_cell files; the totals keep the
  // first top_files_total_files files finalized.
  std::vector<TopFiles> top_files() const;
  // The top kernels by device time of each configured window (docs/api.md,
  // "Top kernels by device time"): Completes with a correlation id outside
  // cat cuda_runtime that count, summed per name and cell of their end, a
  // finalized cell cut to its top_kernels_per_cell names (ties: the lower
  // name id).
  std::vector<TopKernels> top_kernels() const;
  std::uint64_t late_events() const { return late_; }
  std::uint64_t unpaired_events() const { return unpaired_; }

 private:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  struct Open {
    std::int64_t begin_eff = 0;
    std::uint8_t mask = 0;
    bool main = false;
    bool orphan = false;  // an End waiting for its Begin
    std::int64_t end = 0;
    std::int64_t end_eff = 0;
    bool end_on_time = false;
    std::int64_t end_value = 0;  // orphan: the End's value
    bool end_not_late = false;   // orphan: the End was not late
    std::string_view cat;        // a Begin's names
    std::string_view name;
    std::int64_t begin = 0;  // a Begin's time
    std::int64_t file = 0;   // a POSIX or stdio Begin's value
  };
  // A call on a file that counts: its source (index), file id, end,
  // duration, direction (0 none, 1 read, 2 write) and bytes.
  struct FileCall {
    std::size_t source;
    std::uint32_t file;
    std::int64_t end;
    std::int64_t duration;
    int direction;
    std::int64_t bytes;
  };
  // Device work a launch's correlation id points at, that counts: its name,
  // end and duration.
  struct KernelWork {
    NameId name;
    std::int64_t end;
    std::int64_t duration;
  };
  // A read or write call that counts (docs/api.md, "I/O volume").
  struct IoCall {
    std::int64_t end;
    bool write;
    std::int64_t bytes;
  };
  struct Source {
    std::int32_t pid = 0;
    ProcessRole role = ProcessRole::kMain;
    DeviceSource device = DeviceSource::kNone;
    bool device_events = false;  // it added DEVICE_BUSY time (the `trace` signal)
    std::int64_t wm = kNone;
    bool finished = false;
    std::int64_t final_at = 0;
    std::map<std::uint64_t, Open> open;
    std::int32_t ppid = 0;
    std::map<std::uint32_t, std::string_view> files;  // posix_file marks
  };
  struct Interval {
    std::int64_t a, b;
    std::uint8_t mask;
  };

  void close(std::int64_t a, std::int64_t b, std::uint8_t mask);
  void fetch_step(bool main, std::uint8_t mask, std::int64_t end, bool on_time);
  // A region named (cat, name) closed at `end` by an End with `value`.
  void io_call(std::string_view cat, std::string_view name, std::int64_t end, std::int64_t value,
               bool on_time);
  // A call named (cat, name) on `file` of source `source`, [begin, end).
  void file_call(std::size_t source, std::string_view cat, std::string_view name, std::int64_t file,
                 std::int64_t begin, std::int64_t end, std::int64_t value, bool on_time);
  // The live mask of [from, to) (microsecond indices from start_) painted into `out`.
  void paint_live(std::int64_t from, std::int64_t to, std::vector<std::uint8_t>& out) const;
  // Finalizes [horizon, next) if `next` is past the horizon.
  void advance_to(std::int64_t next);
  bool real_device() const;
  // steps_ in time order, without the fallback steps the first mark rules
  // out, as (ts, is a step): the first step mark after fallback steps is not
  // a step (it ends the step its fetch counted), but the next step's
  // duration runs from it.
  std::vector<std::pair<std::int64_t, bool>> counted_steps() const;
  // The batch size in force at `ts` (0 before any).
  double batch_size_at(std::int64_t ts) const;
  std::int64_t index(std::int64_t t) const { return (t - start_) / 1000; }

  EngineConfig config_;
  const NameTable& names_;
  bool has_start_ = false;
  std::int64_t start_ = 0;
  std::int64_t wm_ = kNone;
  std::int64_t horizon_ = kNone;
  std::int64_t finished_since_ = kNone;  // collector time every source had finished at
  std::vector<std::uint8_t> final_;      // per microsecond from start_, valid below horizon_
  std::int64_t final_device_ns_ = 0;     // device busy over final_, as counted at each horizon move
  std::int64_t final_stall_ns_ = 0;
  std::vector<Interval> closed_;
  std::vector<Source> sources_;
  std::vector<std::pair<std::int64_t, bool>> steps_;    // (ts, fallback) in arrival order
  std::vector<std::pair<std::int64_t, double>> sizes_;  // batch sizes in arrival order
  std::vector<IoCall> io_calls_;
  std::vector<FileCall> file_calls_;
  std::vector<KernelWork> kernel_work_;
  std::int64_t first_mark_ = std::numeric_limits<std::int64_t>::max();
  std::uint64_t late_ = 0;
  std::uint64_t unpaired_ = 0;
};

}  // namespace stallwatch::collector::testing
