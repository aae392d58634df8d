// SPDX-License-Identifier: MIT
// NVML readings and GPU lanes in `stallwatch top`: parsed from the API,
// formatted like the web page, and shown in the rank detail view.

#include "gpu_text.h"

#include <gtest/gtest.h>

#include "api_parse.h"
#include "frame.h"
#include "text_width.h"
#include "timeline_text.h"
#include "tui_fixtures.h"

namespace stallwatch::tui {
namespace {

constexpr std::int64_t kLane07 = 0x80000007;  // GPU 0, stream 7

constexpr const char* kGpuRow = R"({"rank": 0, "state": "active", "device_source": "cupti",
  "windows": {}, "processes": [], "gpu_counters_ignored": 0,
  "gpu_counters": [
    {"device": 0, "sampled_ns": 5, "age_seconds": 0.4,
     "utilization_percent": {"latest": 95, "mean": {"10s": 94, "60s": 93, "total": null}},
     "sm_clock_mhz": {"latest": 1410, "mean": {}},
     "memory_used_bytes": {"latest": 8589934592, "mean": {}},
     "power_watts": {"latest": 250.4, "mean": {}}},
    {"device": 1, "sampled_ns": 5, "age_seconds": 3.7,
     "utilization_percent": {"latest": 41, "mean": {"10s": 40, "60s": null}},
     "sm_clock_mhz": {"latest": null, "mean": {}},
     "memory_used_bytes": {"latest": null, "mean": {}},
     "power_watts": {"latest": null, "mean": {}}}]})";

RankRow gpu_rank() {
  const auto parsed =
      parse_job_detail(std::string(R"({"job": "alpha", "ranks": [)") + kGpuRow + "]}");
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  return parsed.ok() ? parsed.value->ranks.at(0) : RankRow{};
}

TEST(GpuTextTest, ParsesNvmlCountersPerDevice) {
  const RankRow r = gpu_rank();
  ASSERT_EQ(r.gpu_counters.size(), 2u);
  const GpuCounters& g0 = r.gpu_counters[0];
  EXPECT_EQ(g0.device, 0);
  EXPECT_DOUBLE_EQ(*g0.age_seconds, 0.4);
  EXPECT_DOUBLE_EQ(*g0.utilization_percent.latest, 95);
  EXPECT_DOUBLE_EQ(*g0.utilization_percent.mean_of("60s"), 93);
  EXPECT_FALSE(g0.utilization_percent.mean_of("total").has_value());  // null
  EXPECT_FALSE(g0.utilization_percent.mean_of("300s").has_value());   // absent
  EXPECT_DOUBLE_EQ(*g0.memory_used_bytes.latest, 8589934592.0);
  EXPECT_FALSE(r.gpu_counters[1].power_watts.latest.has_value());
}

TEST(GpuTextTest, UtilizationIsTheMeanOfTheDevicesWithASample) {
  const RankRow r = gpu_rank();
  EXPECT_DOUBLE_EQ(*nvml_utilization(r, "10s"), 67);
  EXPECT_DOUBLE_EQ(*nvml_utilization(r, "60s"), 93);
  EXPECT_FALSE(nvml_utilization(r, "total").has_value());
  EXPECT_EQ(nvml_util_text(r, "60s"), "NVML util 93 % (60 s mean)");
  EXPECT_EQ(nvml_util_text(r, "total"), "NVML util — (total mean)");
  EXPECT_EQ(nvml_util_text(RankRow{}, "60s"), "") << "no NVML, nothing to say";
}

TEST(GpuTextTest, DeviceLinesMatchTheWebPage) {
  const RankRow r = gpu_rank();
  EXPECT_EQ(gpu_device_line(r.gpu_counters[0], "10s"),
            "GPU 0: 95 % now, 94 % 10 s mean · SM 1410 MHz · 8.0 GiB · 250 W · now");
  EXPECT_EQ(gpu_device_line(r.gpu_counters[1], "60s"), "GPU 1: 41 % now, — 60 s mean · 3 s ago");
}

TEST(GpuTextTest, TimelineLabelsGpuLanesAndListsThemFirst) {
  const auto parsed = parse_timeline(R"({"job": "j", "rank": 0, "from_ns": 0, "to_ns": 10000000000,
    "threads": [{"pid": 42, "tid": 42, "role": "main"},
                {"pid": 42, "tid": 2147483655, "role": "main", "device": 0, "stream": 7,
                 "label": "GPU 0 · stream 7"}],
    "regions": [
      {"start_ns": 0, "end_ns": 6000000000, "pid": 42, "tid": 42, "class": "fetch", "name": "f"},
      {"start_ns": 6000000000, "end_ns": 10000000000, "pid": 42, "tid": 2147483655,
       "class": "device_busy", "name": "matmul"}], "marks": []})");
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  const TimelineView& t = *parsed.value;
  ASSERT_EQ(t.threads.size(), 2u);
  EXPECT_EQ(t.threads[1].tid, kLane07);
  EXPECT_EQ(t.threads[1].device, 0);
  EXPECT_FALSE(t.threads[0].device.has_value());
  const auto rows = timeline_rows(t, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "GPU 0 · stream 7");
  EXPECT_EQ(rows[0].cells, "      DDDD");
  EXPECT_EQ(rows[1].label, "main 42");
  EXPECT_EQ(rows[1].cells, "FFFFFF    ");
}

std::vector<std::string> detail_lines(TopModel& model, TopState& state) {
  std::vector<std::string> out;
  const Canvas c = compose_frame(state, model, 110, 0);
  for (const Line& l : c.lines)
    out.push_back(clip(l.text(), c.width));
  return out;
}

const std::string* line_with(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& l : lines) {
    if (l.find(needle) != std::string::npos) return &l;
  }
  return nullptr;
}

TEST(GpuTextTest, RankDetailShowsNvmlBesideDeviceIdle) {
  TopModel model = test::two_job_model();
  TopState state;
  reconcile(state, model);
  state.view = View::kDetail;
  state.rank = 0;
  state.window = "10s";
  RankRow& r = model.detail->ranks.at(0);
  const RankRow parsed = gpu_rank();
  r.gpu_counters = parsed.gpu_counters;
  const auto lines = detail_lines(model, state);
  const std::string* head = line_with(lines, "NVML util 67 % (10 s mean)");
  ASSERT_NE(head, nullptr);
  EXPECT_NE(head->find("device idle"), std::string::npos);
  EXPECT_NE(line_with(lines, "GPU 0: 95 % now, 94 % 10 s mean · SM 1410 MHz"), nullptr);
  EXPECT_NE(line_with(lines, "GPU 1: 41 % now"), nullptr);
  EXPECT_NE(line_with(lines, "some kernel ran"), nullptr);
  const std::string* row = line_with(lines, "NVML util (mean)");
  ASSERT_NE(row, nullptr) << "a metrics row under device idle";
  EXPECT_NE(row->find("67 %"), std::string::npos);
  EXPECT_NE(row->find("93 %"), std::string::npos);

  r.gpu_counters.clear();
  const auto without = detail_lines(model, state);
  EXPECT_EQ(line_with(without, "NVML"), nullptr) << "no NVML counters, no NVML lines";
}

}  // namespace
}  // namespace stallwatch::tui
