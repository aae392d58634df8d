// SPDX-License-Identifier: MIT
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hta_breakdown.h"
#include "trace_files.h"
#include "traces/trace_reader.h"

namespace stallwatch::collector {

// Reads Kineto traces, one rank each in order, and runs HTA's analyses.
inline HtaBreakdown hta_breakdown_of(const std::vector<std::string>& paths) {
  std::vector<HtaTraceCollector> traces;
  for (const std::string& path : paths) {
    std::string error;
    auto reader = open_trace_reader(path, error);
    EXPECT_NE(reader, nullptr) << error;
    if (!reader) return {};
    HtaTraceCollector& trace = traces.emplace_back(static_cast<std::int64_t>(traces.size()), path);
    TraceEvent event;
    while (reader->next(event))
      trace.add(event);
    EXPECT_EQ(reader->error(), "");
    EXPECT_EQ(reader->stats().malformed, 0u);
    trace.finish(reader->info().fractional_ts);
  }
  return hta_breakdown(traces);
}

inline HtaBreakdown hta_two_rank() {
  return hta_breakdown_of({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
                           testing::test_data("kineto/two-rank/sampled_rank-1.json.gz")});
}

inline HtaBreakdown hta_ns_resolution() {
  return hta_breakdown_of(
      {testing::test_data("kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")});
}

}  // namespace stallwatch::collector
