// SPDX-License-Identifier: MIT
#pragma once

#include "engine/event_class.h"
#include "traces/trace_event.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {

// Receives a rank's events as an analysis pass streams them, so other views
// (the engine's) ride along on the same read. Called on the reading thread;
// the event is valid only during the call.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void begin_rank(const RankGroup& group) = 0;
  virtual void event(const RankGroup& group, const TraceFileInfo& file, const TraceEvent& event,
                     ClassMask classes) = 0;
  virtual void end_rank(const RankGroup& group) = 0;
};

}  // namespace stallwatch::collector
