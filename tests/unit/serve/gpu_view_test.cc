// SPDX-License-Identifier: MIT
// What the API says about GPUs: a rank row's NVML counters (gpu_counters),
// device lanes on the timeline with readable labels, and the NVML gauges of
// GET /metrics.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_backend.h"
#include "gpu_counters_json.h"
#include "router.h"
#include "serve/prometheus_text.h"
#include "stallwatch/device_lane.h"

namespace stallwatch::collector {
namespace {

using nlohmann::json;

class GpuView : public ::testing::Test {
 protected:
  json get_json(std::string_view target) {
    const HttpResponse r = router_.handle(HttpRequest{"GET", target, {}});
    EXPECT_EQ(r.status, 200u) << target << ": " << r.body;
    return json::parse(r.body);
  }

  ServeConfig config_;
  testing::FakeBackend backend_{testing::make_state(25)};
  ServeCounters counters_;
  Router router_{config_, backend_, counters_};
};

TEST_F(GpuView, RankRowsCarryNvmlCountersPerDeviceAndWindow) {
  const json d = get_json("/api/v1/jobs/demo-slow");
  const json& gpus = d["ranks"][0]["gpu_counters"];
  ASSERT_TRUE(gpus.is_array());
  ASSERT_EQ(gpus.size(), 2u);
  const json& g0 = gpus[0];
  EXPECT_EQ(g0["device"], 0);
  EXPECT_EQ(g0["age_seconds"], 0.5);
  EXPECT_EQ(g0["sampled_ns"], 1'700'000'000'000'000'000 - 500'000'000);
  EXPECT_EQ(g0["utilization_percent"]["latest"], 93);
  EXPECT_EQ(g0["utilization_percent"]["mean"],
            json({{"10s", 92}, {"60s", 90.5}, {"300s", nullptr}, {"total", 88}}));
  EXPECT_EQ(g0["sm_clock_mhz"]["latest"], 1410);
  EXPECT_EQ(g0["memory_used_bytes"]["latest"], 8589934592.0);
  EXPECT_EQ(g0["power_watts"]["latest"], 250.5);
  EXPECT_EQ(g0["power_watts"]["mean"]["60s"], 249);

  const json& g1 = gpus[1];
  EXPECT_EQ(g1["device"], 1);
  EXPECT_EQ(g1["age_seconds"], 2.0);
  EXPECT_EQ(g1["utilization_percent"]["latest"], 40);
  EXPECT_TRUE(g1["power_watts"]["latest"].is_null()) << "never sampled: null, not 0";
  EXPECT_TRUE(g1["power_watts"]["mean"]["total"].is_null());
  EXPECT_EQ(d["ranks"][0]["gpu_counters_ignored"], 5);

  const json& none = d["ranks"][1];
  EXPECT_EQ(none["gpu_counters"], json::array()) << "a rank without NVML has an empty list";
  EXPECT_EQ(none["gpu_counters_ignored"], 0);
}

// tree_report_fuzz: a node may report a device none of whose readings has a
// sample; its newest sample time was INT64_MIN and the age overflowed.
TEST(GpuCountersJson, ADeviceWithoutASampleHasNoSampleTimeAndNoAge) {
  RankSnapshot rank;
  rank.watermark_ns = 901;
  rank.gpu_counters.devices.emplace_back().device = 2;
  std::string out;
  JsonWriter w(out);
  write_gpu_counters(w, rank, {"10s", "total"});
  const json g = json::parse(out).at(0);
  EXPECT_EQ(g["device"], 2);
  EXPECT_TRUE(g["sampled_ns"].is_null()) << out;
  EXPECT_TRUE(g["age_seconds"].is_null()) << out;
  EXPECT_TRUE(g["power_watts"]["latest"].is_null()) << out;
}

TEST_F(GpuView, TimelineNamesDeviceLanes) {
  const json t = get_json("/api/v1/jobs/demo-slow/ranks/0/timeline");
  const auto lane = [&](std::uint32_t tid) {
    for (const json& th : t["threads"]) {
      if (th["tid"] == tid) return th;
    }
    return json();
  };
  const json stream = lane(wire::device_lane(0, 7));
  ASSERT_TRUE(stream.is_object()) << t["threads"].dump();
  EXPECT_EQ(stream["label"], "GPU 0 · stream 7");
  EXPECT_EQ(stream["device"], 0);
  EXPECT_EQ(stream["stream"], 7);
  EXPECT_EQ(stream["pid"], 4242);
  EXPECT_EQ(stream["role"], "main");
  const json wide = lane(wire::device_lane(3, wire::kDeviceWideStream));
  ASSERT_TRUE(wide.is_object());
  EXPECT_EQ(wide["label"], "GPU 3 (device)");
  EXPECT_EQ(wide["device"], 3);
  EXPECT_TRUE(wide["stream"].is_null());
  const json host = lane(4242);
  ASSERT_TRUE(host.is_object());
  EXPECT_FALSE(host.contains("device"));
  EXPECT_FALSE(host.contains("label"));
  bool saw_kernel = false;
  for (const json& r : t["regions"]) {
    if (r["name"] == "matmul") {
      saw_kernel = true;
      EXPECT_EQ(r["tid"], wire::device_lane(0, 7));
      EXPECT_EQ(r["class"], "device_busy");
    }
  }
  EXPECT_TRUE(saw_kernel);
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(GpuPrometheus, LatestNvmlSamplesAsGaugesPerDevice) {
  const std::string text = prometheus_text(*testing::make_state(25), ServeStats{});
  for (const char* family : {"stallwatch_gpu_utilization_percent", "stallwatch_gpu_sm_clock_mhz",
                             "stallwatch_gpu_memory_used_bytes", "stallwatch_gpu_power_watts"}) {
    EXPECT_TRUE(has_line(text, "# TYPE " + std::string(family) + " gauge")) << family;
    EXPECT_NE(text.find("# HELP " + std::string(family) + " NVML"), std::string::npos) << family;
  }
  EXPECT_TRUE(has_line(
      text, R"(stallwatch_gpu_utilization_percent{job_id="demo-slow",rank="0",device="0"} 93)"));
  EXPECT_TRUE(has_line(
      text, R"(stallwatch_gpu_utilization_percent{job_id="demo-slow",rank="0",device="1"} 40)"));
  EXPECT_TRUE(has_line(
      text, R"(stallwatch_gpu_sm_clock_mhz{job_id="demo-slow",rank="0",device="0"} 1410)"));
  EXPECT_TRUE(has_line(
      text,
      R"(stallwatch_gpu_memory_used_bytes{job_id="demo-slow",rank="0",device="0"} 8589934592)"));
  EXPECT_TRUE(has_line(
      text, R"(stallwatch_gpu_power_watts{job_id="demo-slow",rank="0",device="0"} 250.5)"));
  EXPECT_EQ(text.find(R"(stallwatch_gpu_power_watts{job_id="demo-slow",rank="0",device="1"})"),
            std::string::npos)
      << "a counter never sampled has no sample";
  EXPECT_EQ(text.find(R"(stallwatch_gpu_utilization_percent{job_id="demo-slow",rank="1")"),
            std::string::npos);
}

}  // namespace
}  // namespace stallwatch::collector
