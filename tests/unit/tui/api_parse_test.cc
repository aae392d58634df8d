// SPDX-License-Identifier: MIT
#include "api_parse.h"

#include <gtest/gtest.h>

#include "catalog/metric_table.h"

namespace stallwatch::tui {
namespace {

using catalog::Metric;

constexpr const char* kMetrics60 =
    R"({"window": "60s", "start_ns": 1, "end_ns": 60000000001, "wall_seconds": 60.0,
  "compute_seconds": 20.5, "app_io_seconds": 30, "io_seconds": 0, "fetch_seconds": 36.6,
  "comm_seconds": 0, "unoverlapped_app_io_seconds": 18, "unoverlapped_io_seconds": 0,
  "unoverlapped_compute_seconds": 0, "device_busy_seconds": 20.5, "data_stall_seconds": 36.6,
  "overlap_ratio": null, "device_idle_ratio": 0.66, "data_stall_ratio": 0.61,
  "steps": 120, "step_seconds_p50": 0.5, "step_seconds_p95": 0.7, "steps_per_second": 2,
  "samples_per_second": null, "verdict": "data-starved", "cause": "preprocessing",
  "loader_io_ratio": 0.125, "a_field_from_the_future": [1, 2]})";

std::string job_detail_body() {
  return std::string(
             R"({"now_ns": 5, "tick": 25, "windows": ["60s", "total"], "verdict_window": "60s",
    "job": "demo-slow", "state": "active", "start_ns": 0, "last_seen_ns": 0, "verdict": "data-starved",
    "summary": {"60s": {"mean": )") +
         kMetrics60 + R"(, "max": )" + kMetrics60 +
         R"(, "straggler_rank": null, "verdict": "data-starved"}},
    "counters": {"events_received": 4000, "batches_received": 10, "agent_dropped": 3, "lost_batches": 1,
                 "late_events": 0, "unpaired_events": 0},
    "ranks": [{"rank": 0, "clock_offset_seconds": -42.5, "clock_warning": true,
      "state": "active", "verdict": "data-starved", "device_source": "compute-proxy",
      "start_ns": 0, "end_ns": 0, "last_seen_ns": 0, "watermark_ns": 77, "epoch": 2, "step": 120,
      "events_received": 4000, "batches_received": 10, "agent_dropped": 3, "lost_batches": 1,
      "late_events": 0, "unpaired_events": 2,
      "windows": {"60s": )" +
         kMetrics60 + R"(},
      "processes": [{"host": "n1", "pid": 4242, "ppid": 1, "role": "main", "device_source": "none",
        "agent_version": "0.1.0", "start_ns": 0, "last_seen_ns": 0, "watermark_ns": 0,
        "finished": false, "open_regions": 1, "counters": {}}]}]})";
}

TEST(ApiParseTest, HeldBackReadsAsTheHeaderShowsIt) {
  std::string body = job_detail_body();
  const std::string null_held = R"("straggler_rank": null, "verdict": "data-starved"})";
  const auto at = body.find(null_held);
  ASSERT_NE(at, std::string::npos);
  const auto parsed_none = parse_job_detail(body);
  ASSERT_TRUE(parsed_none.ok()) << parsed_none.error;
  EXPECT_EQ(parsed_none.value->head.window("60s")->held_back, "");
  body.replace(at, null_held.size(),
               R"("straggler_rank": 3, "verdict": "waiting-for-peers", "held_back": )"
               R"({"ranks": [{"rank": 3, "verdict": "data-starved", "cause": "storage"}], )"
               R"("cost_ratio": 0.384, )"
               R"("other_ranks": 3}})");
  const auto parsed = parse_job_detail(body);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.value->head.window("60s")->held_back,
            "rank 3: data-starved (storage), costs the other 3 ranks 38 %");
}

TEST(ApiParseTest, JobDetailKeepsEveryFieldTheTuiShows) {
  const auto parsed = parse_job_detail(job_detail_body());
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  const JobDetail& d = *parsed.value;
  EXPECT_EQ(d.head.job, "demo-slow");
  EXPECT_EQ(d.head.counters.agent_dropped, 3u);
  EXPECT_EQ(d.head.ranks, 1u);
  EXPECT_EQ(d.head.active_ranks, 1u);
  EXPECT_EQ(d.head.device_source, "compute-proxy");  // derived: the detail body has none
  ASSERT_NE(d.head.window("60s"), nullptr);
  EXPECT_FALSE(d.head.window("60s")->straggler_rank.has_value());
  ASSERT_EQ(d.ranks.size(), 1u);
  const RankRow& r = d.ranks[0];
  EXPECT_EQ(r.clock_offset_seconds, -42.5);
  EXPECT_TRUE(r.clock_warning);
  EXPECT_EQ(r.watermark_ns, 77);
  EXPECT_EQ(r.epoch, 2);
  EXPECT_EQ(r.step, 120);
  EXPECT_EQ(r.counters.unpaired_events, 2u);
  const Metrics* m = r.window("60s");
  ASSERT_NE(m, nullptr);
  EXPECT_DOUBLE_EQ(*m->get(Metric::kDataStallRatio), 0.61);
  EXPECT_DOUBLE_EQ(*m->get(Metric::kStepsPerSecond), 2.0);
  EXPECT_DOUBLE_EQ(*m->get(Metric::kComputeSeconds), 20.5);
  EXPECT_DOUBLE_EQ(*m->get(Metric::kUnoverlappedComputeSeconds), 0.0);
  EXPECT_FALSE(m->get(Metric::kOverlapRatio).has_value());  // JSON null
  EXPECT_FALSE(m->get(Metric::kSamplesPerSecond).has_value());
  EXPECT_FALSE(m->get(Metric::kUnoverlappedAllIoSeconds).has_value());  // not sent
  EXPECT_EQ(m->count(Metric::kSteps), 120u);
  EXPECT_EQ(m->end_ns, 60000000001);
  EXPECT_EQ(m->verdict, "data-starved");
  EXPECT_EQ(m->cause, "preprocessing");
  EXPECT_DOUBLE_EQ(*m->get(Metric::kLoaderIoRatio), 0.125);
  EXPECT_EQ(r.window("10s"), nullptr);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].pid, 4242);
  EXPECT_EQ(r.processes[0].open_regions, 1u);
}

TEST(ApiParseTest, StreamTickCarriesJobsAlertsAndTheSubscribedJob) {
  const std::string tick =
      R"({"type": "tick", "tick": 26, "now_ns": 9, "jobs": [{"job": "a", "state": "silent",
      "ranks": 2, "active_ranks": 0, "verdict": "idle", "device_source": "mixed", "summary": {}, "counters": {}}],
    "alerts": [{"id": "DataStarved/a/0", "name": "DataStarved", "state": "firing", "severity": "warning",
      "job": "a", "rank": 0, "scope": "rank", "metric": "data_stall_ratio", "window": "60s", "value": 0.61,
      "threshold": 0.3, "verdict": "data-starved", "labels": {}, "annotations": {"summary": "rank 0 waits"},
      "active_since_ns": 0, "fired_at_ns": 0, "resolved_at_ns": null}],
    "job": )" +
      job_detail_body() + "}";
  const auto parsed = parse_stream_message(tick);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  ASSERT_TRUE(parsed.value->tick.has_value());
  EXPECT_FALSE(parsed.value->hello.has_value());
  const StreamTick& t = *parsed.value->tick;
  EXPECT_EQ(t.tick, 26u);
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].state, "silent");
  EXPECT_EQ(t.jobs[0].device_source, "mixed");
  ASSERT_EQ(t.alerts.size(), 1u);
  EXPECT_EQ(t.alerts[0].rank, 0);
  EXPECT_DOUBLE_EQ(*t.alerts[0].threshold, 0.3);
  EXPECT_EQ(t.alerts[0].summary, "rank 0 waits");
  ASSERT_TRUE(t.job.has_value());
  EXPECT_EQ(t.job->ranks.size(), 1u);

  const auto no_job =
      parse_stream_message(R"({"type": "tick", "tick": 1, "jobs": [], "alerts": [], "job": null})");
  ASSERT_TRUE(no_job.ok());
  EXPECT_FALSE(no_job.value->tick->job.has_value());
}

TEST(ApiParseTest, HelloAndUnknownMessages) {
  const auto hello = parse_stream_message(
      R"({"type": "hello", "version": "0.1.0", "tick_ms": 500, "windows": ["10s", "total"], "verdict_window": "10s"})");
  ASSERT_TRUE(hello.ok());
  ASSERT_TRUE(hello.value->hello.has_value());
  EXPECT_EQ(hello.value->hello->tick_ms, 500);
  EXPECT_EQ(hello.value->hello->windows, (std::vector<std::string>{"10s", "total"}));
  const auto other = parse_stream_message(R"({"type": "something-new"})");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other.value->hello || other.value->tick);
}

TEST(ApiParseTest, MalformedBodiesAreErrorsNotCrashes) {
  EXPECT_FALSE(parse_jobs_page("").ok());
  EXPECT_FALSE(parse_jobs_page("{\"jobs\": ").ok());
  EXPECT_FALSE(parse_jobs_page("[1, 2]").ok());
  EXPECT_FALSE(parse_jobs_page("{\"jobs\": 3}").ok());
  EXPECT_EQ(parse_jobs_page("[]").error, "response is not a JSON object");
  EXPECT_FALSE(parse_job_detail("{}").ok());
  EXPECT_FALSE(parse_timeline("{}").ok());
  EXPECT_FALSE(parse_series("{\"t\": []}").ok());
  EXPECT_FALSE(parse_status("{}").ok());
  EXPECT_FALSE(parse_stream_message("not json").ok());
  // Mistyped fields take their defaults.
  const auto page =
      parse_jobs_page(R"({"tick": "x", "jobs": [{"job": 7, "ranks": -1, "summary": []}]})");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page.value->tick, 0u);
  EXPECT_EQ(page.value->jobs[0].job, "");
  EXPECT_EQ(page.value->jobs[0].ranks, 0u);
}

// tui_api_fuzz: a float time of 1e300 was converted to int64, which is
// undefined. A number past +-2^62 (or an integer past its type) reads as
// absent, as a mistyped one does; 2^62 itself still reads.
TEST(ApiParseTest, NumbersPastTwoToTheSixtyTwoReadAsAbsent) {
  for (const char* now :
       {"1e300", "-1e300", "4611686018427387905", "-4611686018427387905", "18446744073709551615"}) {
    const auto page = parse_jobs_page(std::string(R"({"now_ns": )") + now + R"(, "jobs": []})");
    ASSERT_TRUE(page.ok()) << now;
    EXPECT_EQ(page.value->now_ns, 0) << now;
  }
  auto page = parse_jobs_page(R"({"now_ns": 4611686018427387904, "tick": 1e300, "jobs": []})");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page.value->now_ns, std::int64_t{1} << 62);
  EXPECT_EQ(page.value->tick, 0u);
  page = parse_jobs_page(R"({"now_ns": 1.7e18, "jobs": []})");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page.value->now_ns, 1'700'000'000'000'000'000);
  const auto series =
      parse_series(R"({"t": [1, 1e300], "ranks": [{"rank": 1, "values": [0.5, -1e300]}]})");
  ASSERT_TRUE(series.ok());
  EXPECT_EQ(series.value->t, (std::vector<double>{1, 0}));
  EXPECT_EQ(series.value->ranks.at(1)[0], 0.5);
  EXPECT_FALSE(series.value->ranks.at(1)[1].has_value());
  // Two times in range can still be 2^63 apart: a timeline spans at most a
  // week, from before to.
  EXPECT_FALSE(parse_timeline(R"({"from_ns": -4611686018427387904, "to_ns": 4611686018427387904,
                                   "regions": []})")
                   .ok());
  EXPECT_FALSE(parse_timeline(R"({"from_ns": 2, "to_ns": 1, "regions": []})").ok());
  EXPECT_TRUE(parse_timeline(R"({"from_ns": 1, "to_ns": 1, "regions": []})").ok());
}

TEST(ApiParseTest, TimelineSeriesStatusAndErrors) {
  const auto t =
      parse_timeline(R"({"job": "j", "rank": 3, "from_ns": 10, "to_ns": 20, "truncated": true,
    "threads": [{"pid": 1, "tid": 2, "role": "worker"}],
    "regions": [{"start_ns": 11, "end_ns": 19, "open": true, "pid": 1, "tid": 2, "class": "fetch",
                 "classes": ["fetch", "app_io"], "cat": "dataloader", "name": "fetch.iter"}], "marks": []})");
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_TRUE(t.value->truncated);
  EXPECT_EQ(t.value->threads[0].role, "worker");
  EXPECT_TRUE(t.value->regions[0].open);
  EXPECT_EQ(t.value->regions[0].cls, "fetch");

  const auto s = parse_series(
      R"({"job": "j", "metric": "data_stall_ratio", "window": "10s", "step_seconds": 1.0,
    "t": [100.0, 101.0, 102.0], "ranks": [{"rank": 4, "values": [0.5, null]}], "mean": [], "max": []})");
  ASSERT_TRUE(s.ok()) << s.error;
  const auto& values = s.value->ranks.at(4);
  ASSERT_EQ(values.size(), 3u);  // padded to the time axis
  EXPECT_DOUBLE_EQ(*values[0], 0.5);
  EXPECT_FALSE(values[1].has_value());
  EXPECT_FALSE(values[2].has_value());

  const auto st =
      parse_status(R"({"version": "0.1.0", "uptime_seconds": 12.5, "tick": 25, "tick_ms": 500,
    "ingest": {"endpoints": ["tcp://127.0.0.1:5557"], "frames_received": 100, "bytes_received": 123456,
      "events_received": 4000, "invalid_frames": {"too_large": 0, "malformed": 2}, "ingest_lag_seconds": 0.01},
    "engine": {"ranks": 2, "sources": 3, "late_events": 0, "evicted_ranks": 0, "rejected_sources": 0,
      "approx_memory_bytes": 1048576, "names": 40, "names_overflowed": 0},
    "counters": {"agent_dropped": 5}, "windows": ["10s", "total"], "verdict_window": "10s"})");
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_EQ(st.value->endpoints.size(), 1u);
  EXPECT_EQ(st.value->invalid_frames.size(), 2u);
  EXPECT_EQ(st.value->sources, 3u);
  EXPECT_EQ(st.value->counters.agent_dropped, 5u);

  EXPECT_EQ(api_error_text(R"({"error": "job 'x' not found", "status": 404})"),
            "job 'x' not found");
  EXPECT_EQ(api_error_text("<html>"), "");
}

}  // namespace
}  // namespace stallwatch::tui
