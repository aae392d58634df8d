// SPDX-License-Identifier: MIT
#include "engine/metric_fields.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "catalog/metric_table.h"
#include "engine/engine.h"

namespace stallwatch::collector {
namespace {

void set(WindowMetrics& m, const MetricField& f, double v) {
  if (f.is_count()) {
    m.*f.count = static_cast<std::uint64_t>(v);
  } else {
    m.*f.value = v;
  }
}

TEST(MetricFields, EachCatalogMetricReadsAFieldOfItsOwn) {
  WindowMetrics m;
  for (std::size_t i = 0; i < metric_fields().size(); ++i)
    set(m, metric_fields()[i], static_cast<double>(i + 1));
  for (std::size_t i = 0; i < metric_fields().size(); ++i) {
    const MetricField& f = metric_fields()[i];
    EXPECT_EQ(f.get(m), static_cast<double>(i + 1)) << f.name();
    EXPECT_EQ(f.id, catalog::kMetrics[i].id) << f.name();
    EXPECT_EQ(&metric_field(f.id), &f);
    EXPECT_FALSE(f.help().empty()) << f.name();
  }
}

TEST(MetricFields, NamedFieldsReadTheRightValues) {
  WindowMetrics m;
  m.data_stall_ratio = 0.25;
  m.steps = 7;
  m.unoverlapped_all_io_seconds = 3.5;
  m.samples_per_second = std::nan("");
  EXPECT_EQ(metric_value(m, catalog::Metric::kDataStallRatio), 0.25);
  EXPECT_EQ(metric_value(m, catalog::Metric::kSteps), 7.0);
  EXPECT_TRUE(metric_field(catalog::Metric::kSteps).is_count());
  EXPECT_EQ(metric_value(m, catalog::Metric::kUnoverlappedAllIoSeconds), 3.5);
  EXPECT_TRUE(std::isnan(metric_value(m, catalog::Metric::kSamplesPerSecond)));
  EXPECT_EQ(metric_field(catalog::Metric::kOverlapRatio).name(), "overlap_ratio");
}

TEST(MetricFields, OnlyStepsAndLaunchCountsAreCounts) {
  std::set<std::string> counts;
  for (const MetricField& f : metric_fields()) {
    if (f.is_count()) counts.emplace(f.name());
    EXPECT_EQ(f.is_count(), f.info().kind == catalog::MetricKind::kCount) << f.name();
  }
  EXPECT_EQ(counts, (std::set<std::string>{"steps", "launches", "short_kernels", "long_launches",
                                           "late_launch_starts"}));
}

TEST(MetricFields, SeriesChartEveryCatalogMetric) {
  const auto& names = Engine::series_metric_names();
  ASSERT_EQ(names.size(), catalog::kMetricCount);
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(names[i], catalog::kMetrics[i].name);
}

// The API's words (docs/api.md) come from the catalog: renaming one there
// would change the API.
TEST(MetricFields, VerdictStateAndSourceNamesAreTheApis) {
  EXPECT_EQ(to_string(Verdict::kIdle), "idle");
  EXPECT_EQ(to_string(Verdict::kDataStarved), "data-starved");
  EXPECT_EQ(to_string(Verdict::kIoBound), "io-bound");
  EXPECT_EQ(to_string(Verdict::kHostBound), "host-bound");
  EXPECT_EQ(to_string(Verdict::kWellOverlapped), "well-overlapped");
  EXPECT_EQ(to_string(RankState::kActive), "active");
  EXPECT_EQ(to_string(RankState::kSilent), "silent");
  EXPECT_EQ(to_string(RankState::kFinished), "finished");
  EXPECT_EQ(to_string(DeviceSignal::kComputeProxy), "compute-proxy");
  EXPECT_EQ(to_string(DeviceSignal::kCupti), "cupti");
  EXPECT_EQ(to_string(DeviceSignal::kCudaEvents), "cuda-events");
  EXPECT_EQ(to_string(DeviceSignal::kNvml), "nvml");
  EXPECT_EQ(to_string(DeviceSignal::kTrace), "trace");
}

}  // namespace
}  // namespace stallwatch::collector
