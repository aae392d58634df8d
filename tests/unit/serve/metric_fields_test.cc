#include "serve/metric_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/engine.h"

namespace stallwatch::collector {
namespace {

TEST(MetricFields, ExportsExactlyTheEnginesNumericMetrics) {
  std::vector<std::string> ours;
  for (const MetricField& f : metric_fields())
    ours.emplace_back(f.name);
  std::vector<std::string> engine;
  for (std::string_view name : Engine::series_metric_names())
    engine.emplace_back(name);
  EXPECT_EQ(ours, engine)
      << "a metric added to WindowMetrics must be added to collector/serve/metric_fields.cc";
}

TEST(MetricFields, GettersReadTheirOwnField) {
  WindowMetrics m;
  m.data_stall_ratio = 0.25;
  m.steps = 7;
  m.unoverlapped_all_io_seconds = 3.5;
  for (const MetricField& f : metric_fields()) {
    if (f.name == "data_stall_ratio") {
      EXPECT_EQ(f.get(m), 0.25);
    }
    if (f.name == "steps") {
      EXPECT_EQ(f.get(m), 7.0);
      EXPECT_TRUE(f.is_count());
    }
    if (f.name == "unoverlapped_all_io_seconds") {
      EXPECT_EQ(f.get(m), 3.5);
    }
    EXPECT_FALSE(f.help.empty()) << f.name;
  }
}

}  // namespace
}  // namespace stallwatch::collector
