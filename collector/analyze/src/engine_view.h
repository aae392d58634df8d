// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/batch_preparer.h"
#include "engine/engine.h"
#include "engine/name_table.h"
#include "traces/batch_builder.h"
#include "traces/batch_channel.h"
#include "traces/trace_sink.h"

namespace stallwatch::collector {

// stallwatch's own view of a recorded run: the trace is turned into the
// batches its processes would have sent and fed into the same Engine as live
// data, on the trace's own clock; one tick at the end gives every rank's
// metrics over the whole run (totals) and over each window ending at the
// rank's last event. Not thread-safe: one thread feeds it, either as a
// TraceSink or with batches shipped from reading threads.
class EngineView : public TraceSink {
 public:
  // `lateness_ns`: how far back an event may start behind its process's
  // latest end and still count (trace files are written in end order).
  // dftracer ranks appear as job "dftracer", Kineto ranks as job "kineto".
  EngineView(const ClassMapping& classes, std::int64_t lateness_ns);
  ~EngineView() override;

  // "" or why the engine configuration was refused.
  const std::string& error() const { return error_; }

  void begin_rank(const RankGroup& group) override;
  void event(const RankGroup& group, const TraceFileInfo& file, const TraceEvent& event,
             ClassMask classes) override;
  void end_rank(const RankGroup& group) override;

  // A batch built on another thread by a ShippingSink (with these options):
  // its names are mapped into this view's table, then it is ingested like
  // one built here. Call on the thread that owns the view; batches of one
  // producer in the order they were built.
  void ingest_shipped(ShippedBatch& shipped);
  static BatchBuilder::Options batch_options();

  // Ticks once at the latest time seen and returns the snapshot.
  std::shared_ptr<const Snapshot> finish();
  const EngineConfig& config() const { return config_; }

 private:
  void ingest(const DecodedBatch& batch);

  EngineConfig config_;
  std::string error_;
  NameTable names_;
  std::unique_ptr<Engine> engine_;
  // Batches go through the engine's preparer, as in stallwatchd (on the same
  // thread here): the engine's lighter path, the same results.
  std::unique_ptr<BatchPreparer> preparer_;
  PreparedBatch prepared_;
  BatchBuilder builder_;
  BatchBuilder::Emit emit_;
  std::int64_t latest_ns_ = std::numeric_limits<std::int64_t>::min();
  std::vector<std::vector<NameId>> shipped_ids_;  // per producer: its id -> ours
};

}  // namespace stallwatch::collector
