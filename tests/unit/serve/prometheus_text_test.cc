// SPDX-License-Identifier: MIT
#include "serve/prometheus_text.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "engine/metric_fields.h"
#include "fake_backend.h"

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

std::vector<std::string> samples(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

// Samples whose label set starts with `labels` (e.g. `job_id="x",rank="1"`).
std::size_t count_with(const std::string& text, const std::string& labels) {
  std::size_t n = 0;
  for (const std::string& s : samples(text))
    n += s.find("{" + labels + ",") != std::string::npos ||
         s.find("{" + labels + "}") != std::string::npos;
  return n;
}

std::size_t count_prefixed(const std::string& text, const std::string& prefix,
                           const std::string& needle) {
  std::size_t n = 0;
  for (const std::string& s : samples(text))
    n += s.rfind(prefix, 0) == 0 && s.find(needle) != std::string::npos;
  return n;
}

// A sample's family: its name up to the labels, less a histogram's suffix.
std::string family_of(const std::string& sample, const std::set<std::string>& histograms) {
  std::string name = sample.substr(0, sample.find_first_of("{ "));
  for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      const std::string base = name.substr(0, name.size() - suffix.size());
      if (histograms.count(base)) return base;
    }
  }
  return name;
}

class PrometheusText : public ::testing::Test {
 protected:
  std::string render(const PrometheusConfig& config = {}) {
    return prometheus_text(*state_, serve_, config);
  }
  std::shared_ptr<PublishedState> state_ = testing::make_state(25);
  ServeStats serve_{.connections_refused = 4, .websocket_ticks_skipped = 9};
  std::string text_ = render();
};

TEST_F(PrometheusText, RankCountersCarryTheFinalizedTotalsInSeconds) {
  EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_wall_seconds_total counter"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_wall_seconds_total{job_id="demo-slow",rank="0"} 398)"));
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_wall_seconds_total{job_id="demo-slow",rank="1"} 397.123456789)"));
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_data_stall_seconds_total{job_id="demo-slow",rank="0"} 242.78)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_device_busy_seconds_total{job_id="demo-slow",rank="0"} 159)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_fetch_seconds_total{job_id="demo-slow",rank="1"} 19.9)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_steps_total{job_id="demo-slow",rank="0"} 1590)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_samples_total{job_id="demo-slow",rank="0"} 50880)"));
  for (const char* name : {"wall", "data_stall", "device_busy", "fetch", "compute", "app_io",
                           "unoverlapped_app_io", "io", "unoverlapped_io", "comm"}) {
    EXPECT_TRUE(
        has_line(text_, "# TYPE stallwatch_" + std::string(name) + "_seconds_total counter"))
        << name;
  }
  EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_steps_total counter"));
  EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_samples_total counter"));
}

TEST_F(PrometheusText, IoCountersOnlyForRanksWithCapturedIo) {
  EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_io_read_bytes_total counter"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_io_read_bytes_total{job_id="demo-slow",rank="0"} 104857600)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_io_write_bytes_total{job_id="demo-slow",rank="0"} 4096)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_io_read_ops_total{job_id="demo-slow",rank="0"} 1600)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_io_write_ops_total{job_id="demo-slow",rank="0"} 4)"));
  EXPECT_EQ(text_.find(R"(stallwatch_io_read_bytes_total{job_id="demo-slow",rank="1"})"),
            std::string::npos);
}

TEST_F(PrometheusText, TwentySeriesPerRankByDefault) {
  // Rank 1 of demo-slow has no NVML samples and no captured I/O: counters, info, verdict, peer
  // wait, p50, p95.
  EXPECT_EQ(count_with(text_, R"(job_id="demo-slow",rank="1")"), 20u) << text_.substr(0, 6000);
  // Rank 0 adds its NVML samples (four of device 0, utilization of device 1), its four I/O
  // counters and its three top files.
  EXPECT_EQ(count_with(text_, R"(job_id="demo-slow",rank="0")"), 20u + 5u + 4u + 3u);
  // No per-window gauge of today unless configured.
  EXPECT_FALSE(has_line(text_, "# TYPE stallwatch_data_stall_ratio gauge"));
  EXPECT_EQ(text_.find("stallwatch_rank_state"), std::string::npos);
  EXPECT_EQ(text_.find("stallwatch_events_received_total"), std::string::npos);
  EXPECT_EQ(text_.find("stallwatch_step_duration_seconds"), std::string::npos);
}

TEST_F(PrometheusText, SeventyOneSeriesPerJobByDefault) {
  // 33 metrics x (mean, max), the verdict, the straggler and 3 rank states.
  EXPECT_EQ(count_prefixed(text_, "stallwatch_job_", R"({job_id="demo-slow",)"), 71u);
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_job_data_stall_ratio{job_id="demo-slow",window="60s",aggregate="mean"} 0.61)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_job_data_stall_ratio{job_id="demo-slow",window="60s",aggregate="max"} 0.05)"));
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_job_steps{job_id="demo-slow",window="60s",aggregate="mean"} 120)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_job_verdict{job_id="demo-slow",window="60s",verdict="data-starved",cause="storage"} 1)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_job_loader_io_ratio{job_id="demo-slow",window="60s",aggregate="mean"} 0.9)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_job_straggler_rank{job_id="demo-slow",window="60s"} 1)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_job_ranks{job_id="demo-slow",state="active"} 1)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_job_ranks{job_id="demo-slow",state="silent"} 1)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_job_ranks{job_id="demo-slow",state="finished"} 0)"));
  // One rank: no straggler.
  EXPECT_EQ(count_prefixed(text_, "stallwatch_job_straggler_rank", "a/b"), 0u);
  for (const MetricField& f : metric_fields()) {
    EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_job_" + std::string(f.name()) + " gauge"))
        << f.name();
  }
}

TEST_F(PrometheusText, JobWindowsAreConfigurable) {
  PrometheusConfig config;
  config.job_windows_ns = {10 * kS, 0};
  const std::string text = render(config);
  EXPECT_EQ(count_prefixed(text, "stallwatch_job_", R"({job_id="demo-slow",)"), 2u * 68u + 3u);
  EXPECT_TRUE(has_line(
      text,
      R"(stallwatch_job_overlap_ratio{job_id="demo-slow",window="total",aggregate="mean"} NaN)"));
  EXPECT_EQ(count_prefixed(text, "stallwatch_job_", R"(window="60s")"), 0u);
}

TEST_F(PrometheusText, VerdictAndStateAreOneSeriesEach) {
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_verdict{job_id="demo-slow",rank="0",window="60s",verdict="data-starved",cause="storage"} 1)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_verdict{job_id="demo-slow",rank="1",window="60s",verdict="well-overlapped",cause="none"} 1)"));
  EXPECT_EQ(count_prefixed(text_, "stallwatch_verdict{", R"(rank="0")"), 2u);  // 2 jobs
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_rank_info{job_id="demo-slow",rank="1",state="silent",device_source="compute-proxy"} 1)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_rank_info{job_id="demo-slow",rank="0",state="active",device_source="compute-proxy"} 1)"));
}

TEST_F(PrometheusText, StepQuantilesOfTheStepWindow) {
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_step_seconds_p50{job_id="demo-slow",rank="0",window="60s"} 0.25)"));
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_step_seconds_p95{job_id="demo-slow",rank="0",window="60s"} 0.3)"));
  PrometheusConfig config;
  config.step_window_ns = 300 * kS;
  const std::string text = render(config);
  EXPECT_TRUE(has_line(
      text, R"(stallwatch_step_seconds_p95{job_id="demo-slow",rank="0",window="300s"} 0.3)"));
  EXPECT_EQ(text.find(R"(stallwatch_step_seconds_p95{job_id="demo-slow",rank="0",window="60s"})"),
            std::string::npos);
}

TEST_F(PrometheusText, PerRankWindowsBringBackTheWindowGauges) {
  PrometheusConfig config;
  config.per_rank_windows_ns = {10 * kS, 0};
  const std::string text = render(config);
  EXPECT_TRUE(has_line(
      text, R"(stallwatch_data_stall_ratio{job_id="demo-slow",rank="1",window="10s"} 0.05)"));
  EXPECT_TRUE(has_line(
      text, R"(stallwatch_overlap_ratio{job_id="demo-slow",rank="0",window="total"} NaN)"));
  EXPECT_TRUE(
      has_line(text, R"(stallwatch_compute_seconds{job_id="demo-slow",rank="0",window="10s"} 4)"));
  EXPECT_TRUE(
      has_line(text, R"(stallwatch_steps{job_id="demo-slow",rank="0",window="total"} 120)"));
  EXPECT_EQ(text.find(R"(stallwatch_compute_seconds{job_id="demo-slow",rank="0",window="60s"})"),
            std::string::npos);
  for (const MetricField& f : metric_fields()) {
    EXPECT_TRUE(has_line(text, "# TYPE stallwatch_" + std::string(f.name()) + " gauge"))
        << f.name();
  }
  // The verdict and step quantiles of the added windows join the default ones.
  EXPECT_EQ(count_prefixed(text, "stallwatch_verdict{", R"(job_id="demo-slow",rank="0")"), 3u);
  EXPECT_EQ(count_prefixed(text, "stallwatch_step_seconds_p50{", R"(job_id="demo-slow",rank="0")"),
            3u);
  // 20 default + 33 metrics x 2 windows + 2 verdicts + 2 peer waits.
  EXPECT_EQ(count_with(text, R"(job_id="demo-slow",rank="1")"), 20u + 66u + 2u + 2u);
}

TEST_F(PrometheusText, TopFilesOfTheVerdictWindowBoundedPerRank) {
  EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_top_file_io_seconds gauge"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_top_file_io_seconds{job_id="demo-slow",rank="0",window="60s",path="/data/shard-0.bin"} 3.25)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_top_file_io_seconds{job_id="demo-slow",rank="0",window="60s",path="/ckpt/model.pt"} 0.5)"));
  EXPECT_EQ(count_prefixed(text_, "stallwatch_top_file_io_seconds{", R"(rank="0")"), 3u);
  EXPECT_EQ(count_prefixed(text_, "stallwatch_top_file_io_seconds{", R"(rank="1")"), 0u)
      << "no file I/O, no series";
  EXPECT_EQ(count_prefixed(text_, "stallwatch_top_file_io_seconds{", R"(window="10s")"), 0u);

  PrometheusConfig one;
  one.top_files = 1;
  const std::string text = render(one);
  EXPECT_EQ(count_prefixed(text, "stallwatch_top_file_io_seconds{", R"(job_id="demo-slow")"), 1u);
  EXPECT_TRUE(has_line(
      text,
      R"(stallwatch_top_file_io_seconds{job_id="demo-slow",rank="0",window="60s",path="/data/shard-0.bin"} 3.25)"));

  PrometheusConfig none;
  none.top_files = 0;
  EXPECT_EQ(render(none).find("stallwatch_top_file_io_seconds"), std::string::npos);
}

TEST_F(PrometheusText, TopFilePathsAreEscaped) {
  auto snap = testing::make_snapshot(25);
  for (JobSnapshot& job : snap->jobs) {
    for (RankSnapshot& r : job.ranks) {
      for (TopFiles& t : r.top_files)
        t.files.at(0).path = "/odd\\dir/\"q\"\nx";
    }
  }
  state_->snapshot = snap;
  const std::string text = render();
  EXPECT_NE(text.find(R"(path="/odd\\dir/\"q\"\nx"} 3.25)"), std::string::npos) << text;
}

TEST_F(PrometheusText, RankActivityIsOptIn) {
  PrometheusConfig config;
  config.rank_activity = true;
  const std::string text = render(config);
  EXPECT_TRUE(
      has_line(text, R"(stallwatch_events_received_total{job_id="demo-slow",rank="1"} 1001)"));
  EXPECT_TRUE(
      has_line(text, R"(stallwatch_batches_received_total{job_id="demo-slow",rank="1"} 10)"));
  EXPECT_TRUE(has_line(text, R"(stallwatch_rank_epoch{job_id="demo-slow",rank="1"} 2)"));
  EXPECT_TRUE(has_line(text, R"(stallwatch_rank_step{job_id="demo-slow",rank="1"} 121)"));
  EXPECT_EQ(count_with(text, R"(job_id="demo-slow",rank="1")"), 24u);
}

TEST_F(PrometheusText, StepHistogramWhenTheEngineKeepsOne) {
  auto snap = testing::make_snapshot(25);
  snap->step_histogram_bounds_ns = {100'000'000, 250'000'000, 1'000'000'000};
  for (JobSnapshot& job : snap->jobs) {
    for (RankSnapshot& r : job.ranks)
      r.finalized.step_buckets = {3, 1500, 1589};
  }
  state_->snapshot = snap;
  const std::string text = render();
  EXPECT_TRUE(has_line(text, "# TYPE stallwatch_step_duration_seconds histogram"));
  const std::string rank = R"(job_id="demo-slow",rank="1")";
  EXPECT_TRUE(
      has_line(text, "stallwatch_step_duration_seconds_bucket{" + rank + R"(,le="0.1"} 3)"));
  EXPECT_TRUE(
      has_line(text, "stallwatch_step_duration_seconds_bucket{" + rank + R"(,le="0.25"} 1500)"));
  EXPECT_TRUE(
      has_line(text, "stallwatch_step_duration_seconds_bucket{" + rank + R"(,le="1"} 1589)"));
  EXPECT_TRUE(
      has_line(text, "stallwatch_step_duration_seconds_bucket{" + rank + R"(,le="+Inf"} 1589)"));
  EXPECT_TRUE(has_line(text, "stallwatch_step_duration_seconds_sum{" + rank + "} 397"));
  EXPECT_TRUE(has_line(text, "stallwatch_step_duration_seconds_count{" + rank + "} 1589"));
  // Buckets + 1 (+Inf) + sum + count.
  EXPECT_EQ(count_with(text, rank), 20u + 6u);
}

TEST_F(PrometheusText, LossCountersAndSelfMetrics) {
  EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_agent_dropped_total counter"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_agent_dropped_total{job_id="demo-slow",rank="0"} 3)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_lost_batches_total{job_id="demo-slow",rank="0"} 1)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_late_events_total{job_id="demo-slow",rank="0"} 2)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_unpaired_events_total{job_id="demo-slow",rank="0"} 0)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_ingest_invalid_frames_total{reason="malformed"} 7)"));
  EXPECT_TRUE(has_line(text_, "stallwatch_ingest_frames_received_total 100"));
  EXPECT_TRUE(has_line(text_, "stallwatch_ingest_lag_seconds 0.01"));
  EXPECT_TRUE(has_line(text_, "stallwatch_tick_duration_seconds 4e-04"));
  EXPECT_TRUE(has_line(text_, "stallwatch_names 40"));
  EXPECT_TRUE(has_line(text_, "stallwatch_ranks 3"));
  EXPECT_TRUE(has_line(text_, "stallwatch_http_connections_refused_total 4"));
  EXPECT_TRUE(has_line(text_, "stallwatch_websocket_ticks_skipped_total 9"));
}

TEST_F(PrometheusText, AlertStatesIncludingJobScope) {
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_alert_state{alertname="DataStarved",job_id="demo-slow",rank="0",severity="warning",state="firing"} 1)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_alert_state{alertname="DataStarved",job_id="demo-slow",rank="0",severity="warning",state="pending"} 0)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_alert_state{alertname="DeviceIdle",job_id="demo-slow",rank="",severity="warning",state="pending"} 1)"));
}

TEST_F(PrometheusText, LabelValuesAreEscaped) {
  // kOddJob = a/b c?d="e"\<newline>ü
  const std::string job = "job_id=\"a/b c?d=\\\"e\\\"\\\\\\n\xC3\xBC\"";
  EXPECT_TRUE(has_line(text_, "stallwatch_data_stall_seconds_total{" + job + ",rank=\"0\"} 79.6"))
      << text_.substr(0, 2000);
  EXPECT_TRUE(has_line(
      text_, "stallwatch_job_data_stall_ratio{" + job + ",window=\"60s\",aggregate=\"mean\"} 0.2"));
}

// Every family declared once, before its samples, which stay together; with
// every option on.
TEST_F(PrometheusText, EveryFamilyHasHelpAndTypeOnceBeforeItsSamples) {
  auto snap = testing::make_snapshot(25);
  snap->step_histogram_bounds_ns = {kS};
  for (JobSnapshot& job : snap->jobs) {
    for (RankSnapshot& r : job.ranks)
      r.finalized.step_buckets = {7};
  }
  state_->snapshot = snap;
  PrometheusConfig config;
  config.per_rank_windows_ns = {10 * kS, 60 * kS, 300 * kS, 0};
  config.job_windows_ns = {10 * kS, 0};
  config.rank_activity = true;
  for (const std::string& text : {text_, render(config)}) {
    std::istringstream in(text);
    std::string line;
    std::set<std::string> typed;
    std::set<std::string> helped;
    std::set<std::string> histograms;
    std::set<std::string> finished;  // families whose block has ended
    std::string current;
    while (std::getline(in, line)) {
      ASSERT_FALSE(line.empty());
      if (line.rfind("# HELP ", 0) == 0) {
        const std::string name = line.substr(7, line.find(' ', 7) - 7);
        EXPECT_TRUE(helped.insert(name).second) << "HELP twice for " << name;
        continue;
      }
      if (line.rfind("# TYPE ", 0) == 0) {
        const std::string name = line.substr(7, line.find(' ', 7) - 7);
        EXPECT_TRUE(typed.insert(name).second) << "TYPE twice for " << name;
        if (line.ends_with(" histogram")) histograms.insert(name);
        if (!current.empty()) finished.insert(current);
        current = name;
        continue;
      }
      const std::string family = family_of(line, histograms);
      EXPECT_EQ(family, current) << "sample outside its family block: " << line;
      EXPECT_TRUE(helped.count(family)) << line;
      EXPECT_FALSE(finished.count(family)) << "family split: " << line;
    }
    EXPECT_GT(typed.size(), 60u);
  }
}

TEST(PrometheusTextEmpty, BeforeTheFirstTickStillDeclaresTheDefaultFamilies) {
  PublishedState empty;
  const std::string text = prometheus_text(empty, ServeStats{});
  EXPECT_TRUE(has_line(text, "stallwatch_ranks 0"));
  for (const char* family :
       {"stallwatch_data_stall_seconds_total counter", "stallwatch_rank_info gauge",
        "stallwatch_verdict gauge", "stallwatch_step_seconds_p95 gauge",
        "stallwatch_job_data_stall_ratio gauge", "stallwatch_job_ranks gauge"}) {
    EXPECT_TRUE(has_line(text, std::string("# TYPE ") + family)) << family;
  }
  EXPECT_EQ(text.find("# TYPE stallwatch_data_stall_ratio "), std::string::npos);
}

}  // namespace
}  // namespace stallwatch::collector
