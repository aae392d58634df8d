// SPDX-License-Identifier: MIT
#include "engine/engine_config.h"

#include <gtest/gtest.h>

namespace stallwatch::collector {
namespace {

TEST(EngineConfig, DefaultsAreValid) {
  EngineConfig c;
  EXPECT_EQ(validate(c), "");
  EXPECT_EQ(c.verdict_window_ns, 60 * kNsPerSecond);
}

TEST(EngineConfig, ErrorsNameTheField) {
  struct Case {
    void (*mutate)(EngineConfig&);
    const char* field;
  };
  const Case cases[] = {
      {[](EngineConfig& c) { c.resolution_ns = 0; }, "resolution_ns"},
      {[](EngineConfig& c) { c.resolution_ns = 5 * kNsPerSecond; }, "resolution_ns"},
      {[](EngineConfig& c) { c.windows_ns.push_back(1500 * 1'000'000); }, "windows_ns[3]"},
      {[](EngineConfig& c) { c.windows_ns.push_back(10 * kNsPerSecond); }, "more than once"},
      {[](EngineConfig& c) { c.verdict_window_ns = 20 * kNsPerSecond; }, "verdict_window_ns"},
      {[](EngineConfig& c) { c.lateness_ns = -1; }, "lateness_ns"},
      {[](EngineConfig& c) { c.silent_after_ns = 0; }, "silent_after_ns"},
      {[](EngineConfig& c) { c.history_ns = 300 * kNsPerSecond; }, "history_ns"},
      {[](EngineConfig& c) { c.max_ranks = 0; }, "max_ranks"},
      {[](EngineConfig& c) { c.max_sources_per_rank = 70000; }, "max_sources_per_rank"},
      {[](EngineConfig& c) { c.step_mark.clear(); }, "step_mark"},
      {[](EngineConfig& c) { c.top_files_per_cell = 0; }, "top_files_per_cell"},
      {[](EngineConfig& c) { c.max_files_per_source = 0; }, "max_files_per_source"},
      {[](EngineConfig& c) { c.top_files_total_files = 0; }, "top_files_total_files"},
      {[](EngineConfig& c) { c.top_files_shown = 0; }, "top_files_shown"},
      {[](EngineConfig& c) { c.top_files_shown = 1001; }, "top_files_shown"},
      {[](EngineConfig& c) {
         c.step_histogram_bounds_ns = {2, 1};
       },
       "step_histogram_bounds_ns"},
      {[](EngineConfig& c) { c.step_histogram_bounds_ns = {0}; }, "step_histogram_bounds_ns"},
      {[](EngineConfig& c) { c.step_histogram_bounds_ns.assign(65, 1); },
       "step_histogram_bounds_ns"},
      {[](EngineConfig& c) { c.verdict.data_stall_ratio = 1.5; }, "verdict.data_stall_ratio"},
  };
  for (const auto& k : cases) {
    EngineConfig c;
    k.mutate(c);
    const std::string err = validate(c);
    EXPECT_NE(err.find(k.field), std::string::npos) << "want '" << k.field << "' in: " << err;
  }
}

TEST(EngineConfig, TotalsMayBeTheVerdictWindow) {
  EngineConfig c;
  c.verdict_window_ns = 0;
  EXPECT_EQ(validate(c), "");
}

TEST(EngineConfig, FirstUnorderedBoundIsWhereTheHistogramBoundsStopAscending) {
  EXPECT_EQ(first_unordered_bound({}), 0u);
  EXPECT_EQ(first_unordered_bound({1, 2, 3}), 3u);
  EXPECT_EQ(first_unordered_bound({0, 2}), 0u);
  EXPECT_EQ(first_unordered_bound({1, 5, 5}), 2u);
  EXPECT_EQ(first_unordered_bound({3, 2, 1}), 1u);
}

}  // namespace
}  // namespace stallwatch::collector
