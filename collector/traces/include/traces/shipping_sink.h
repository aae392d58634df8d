// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>

#include "engine/name_table.h"
#include "traces/batch_builder.h"
#include "traces/batch_channel.h"
#include "traces/trace_sink.h"

namespace stallwatch::collector {

// The engine view's stand-in on a reading thread: turns the rank's events
// into agent batches (as EngineView does) with names interned in a table of
// its own, and ships each batch with the names it introduced through a
// BatchChannel to the thread that owns the engine (EngineView::ingest_shipped).
//
// One per reading thread, used by that thread only; it may read several ranks
// one after the other. Memory: the builder's pending batches and the table of
// distinct names.
class ShippingSink : public TraceSink {
 public:
  ShippingSink(BatchChannel& channel, std::size_t producer, BatchBuilder::Options options);

  void begin_rank(const RankGroup& group) override;
  void event(const RankGroup& group, const TraceFileInfo& file, const TraceEvent& event,
             ClassMask classes) override;
  void end_rank(const RankGroup& group) override;

 private:
  void ship(const DecodedBatch& batch);

  BatchChannel& channel_;
  std::size_t producer_;
  NameTable names_;
  BatchBuilder builder_;
  BatchBuilder::Emit emit_;
  NameId shipped_names_ = 0;  // ids below this have been shipped
};

}  // namespace stallwatch::collector
