// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/batch_preparer.h"
#include "engine/decoded_batch.h"
#include "engine/engine_config.h"
#include "engine/name_table.h"
#include "engine/peer_wait_span.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

// One region on the timeline view (closed, or open up to the watermark).
struct TimelineRegion {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool open = false;
  std::int32_t pid = 0;
  std::uint32_t tid = 0;
  ClassMask classes = 0;
  std::string cat;
  std::string name;
  // The wait that ended a loop (its END carried kEndLoopExhausted): measured
  // like any region, but not an item fetched nor a step.
  bool loop_end = false;
};

struct TimelineMark {
  std::int64_t ts_ns = 0;
  std::int32_t pid = 0;
  std::uint32_t tid = 0;
  std::string name;
  std::int64_t value = 0;
};

struct Timeline {
  std::string job;
  std::int32_t rank = 0;
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;               // the rank's watermark
  std::vector<TimelineRegion> regions;  // sorted by start
  std::vector<TimelineMark> marks;
  // Sorted, disjoint; the engine leaves them empty: they are the job's, set
  // at tick time (RankSnapshot::peer_waits, job_peer_waits()), which its
  // reader splices in.
  std::vector<PeerWaitSpan> peer_waits;
  bool truncated = false;  // more regions than the timeline keeps
};

// History of one metric over one window for a job: one point per resolution
// step, each the metric over [t - window, t). `t_ns` is on the collector's
// clock: a rank's value at t is read at t plus its host's clock offset
// (HostClock), rounded to the resolution.
struct Series {
  std::string job;
  std::string metric;
  std::int64_t window_ns = 0;
  std::int64_t step_ns = 0;
  std::vector<std::int64_t> t_ns;
  std::vector<std::int32_t> ranks;
  std::vector<std::vector<double>> values;  // [rank index][point]; NaN where undefined
  std::vector<double> mean;                 // over ranks, per point
  std::vector<double> max;
};

// The exact sliding-window interval engine (docs/design.md, "Metrics").
//
// Pure: no threads, sockets or clocks. Time comes in as parameters: event
// times are the agents' clocks, `now_ns` is the collector's clock (used only
// for liveness: silent ranks, forgetting). Not thread-safe; the owner
// serializes calls (stallwatchd holds one mutex around it).
//
// Memory is bounded by the configured windows, history and limits, never by
// run length.
class Engine {
 public:
  // `config` must pass validate() (an invalid one is replaced by the defaults,
  // never trusted). Interns the step/epoch/batch-size names into `names`,
  // which must outlive the engine.
  Engine(EngineConfig config, NameTable& names);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineConfig& config() const;

  // Applies one validated batch received at `now_ns`. `prepared`, when given,
  // is what a preparer from make_preparer() made of this very batch; its
  // intervals are moved out. Without it (or when it does not match the
  // batch) the engine does that work itself, with the same results.
  void ingest(const DecodedBatch& batch, std::int64_t now_ns, PreparedBatch* prepared = nullptr);

  // A preparer for batches to this engine, for use on another thread:
  // `names_mutex` must be held around everything else that uses this
  // engine's NameTable (stallwatchd: the EngineHost mutex).
  BatchPreparer make_preparer(std::mutex* names_mutex) const;

  // Finalizes what the watermarks allow (a rank finished for the lateness by
  // `now_ns`: up to its end), updates states, evicts old ranks and returns
  // the metrics as of `now_ns`.
  std::shared_ptr<const Snapshot> tick(std::int64_t now_ns);

  // Regions and marks of the last `seconds` before the rank's watermark;
  // nullopt when the rank is unknown. Its peer_waits are left empty: they are
  // the job's, matched at tick time (job_peer_waits() of the snapshot, which
  // at a tree head spans its nodes too).
  std::optional<Timeline> timeline(std::string_view job, std::int32_t rank,
                                   std::int64_t seconds) const;

  // `metric` is a metric's name in the catalog (catalog/metric_table.h, e.g.
  // "data_stall_ratio"); `window_ns` one of the configured windows; `span_ns`
  // how far back. nullopt when the job or metric is unknown.
  std::optional<Series> series(std::string_view job, std::string_view metric,
                               std::int64_t window_ns, std::int64_t span_ns) const;
  // Every metric a series can chart: the catalog's names, in its order.
  static const std::vector<std::string_view>& series_metric_names();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stallwatch::collector
