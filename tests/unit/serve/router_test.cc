// SPDX-License-Identifier: MIT
#include "router.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api_json.h"
#include "fake_backend.h"

namespace stallwatch::collector {
namespace {

using nlohmann::json;
constexpr std::int64_t kS = 1'000'000'000;

class RouterTest : public ::testing::Test {
 protected:
  RouterTest() {
    config_.static_files = [](std::string_view path) -> std::optional<StaticFile> {
      if (path == "/")
        return StaticFile{"<!doctype html><title>stallwatch</title>", "text/html; charset=utf-8"};
      if (path == "/app.js") return StaticFile{"console.log(1)", "text/javascript"};
      return std::nullopt;
    };
  }

  HttpResponse get(std::string_view target, std::string_view method = "GET",
                   std::string_view auth = {}) {
    return router().handle(HttpRequest{method, target, auth});
  }
  json get_json(std::string_view target, unsigned expect_status = 200) {
    const HttpResponse r = get(target);
    EXPECT_EQ(r.status, expect_status) << target << ": " << r.body;
    EXPECT_EQ(r.content_type, "application/json");
    return json::parse(r.body);
  }
  const Router& router() {
    if (!router_) router_.emplace(config_, backend_, counters_);
    return *router_;
  }

  ServeConfig config_;
  testing::FakeBackend backend_{testing::make_state(25)};
  ServeCounters counters_;
  std::optional<Router> router_;
};

TEST_F(RouterTest, Healthz) {
  const json h = get_json("/healthz");
  EXPECT_EQ(h["status"], "ok");
  EXPECT_EQ(h["version"], "0.1.0");
  EXPECT_EQ(h["uptime_seconds"], 12.5);
  EXPECT_EQ(h["tick"], 25);
}

TEST_F(RouterTest, Status) {
  const json s = get_json("/api/v1/status");
  EXPECT_EQ(s["tick_ms"], 500);
  EXPECT_EQ(s["ingest"]["endpoints"][0], "tcp://127.0.0.1:5557");
  EXPECT_EQ(s["ingest"]["invalid_frames"]["malformed"], 7);
  EXPECT_EQ(s["ingest"]["frames_received"], 100);
  EXPECT_EQ(s["engine"]["ranks"], 3);
  EXPECT_EQ(s["engine"]["names"], 40);
  EXPECT_EQ(s["counters"]["events_received"], 3000);
  EXPECT_EQ(s["windows"], json({"10s", "60s", "300s", "total"}));
  EXPECT_EQ(s["verdict_window"], "60s");
}

TEST_F(RouterTest, JobsListsSummaries) {
  const json j = get_json("/api/v1/jobs");
  EXPECT_EQ(j["tick"], 25);
  EXPECT_EQ(j["verdict_window"], "60s");
  ASSERT_EQ(j["jobs"].size(), 2u);
  const json& demo = j["jobs"][1];
  EXPECT_EQ(demo["job"], "demo-slow");
  EXPECT_EQ(demo["ranks"], 2);
  EXPECT_EQ(demo["active_ranks"], 1);
  EXPECT_EQ(demo["verdict"], "data-starved");
  EXPECT_EQ(demo["cause"], "storage");
  EXPECT_EQ(demo["summary"]["60s"]["cause"], "storage");
  EXPECT_EQ(demo["device_source"], "compute-proxy");
  const json& agg = demo["summary"]["60s"];
  EXPECT_EQ(agg["mean"]["data_stall_ratio"], 0.61);
  EXPECT_EQ(agg["mean"]["window"], "60s");
  EXPECT_TRUE(agg["mean"]["overlap_ratio"].is_null());
  EXPECT_TRUE(agg["mean"]["samples_per_second"].is_null());
  EXPECT_EQ(agg["max"]["data_stall_ratio"], 0.05);
  EXPECT_EQ(agg["straggler_rank"], 1);
  EXPECT_TRUE(j["jobs"][0]["summary"]["10s"]["straggler_rank"].is_null());
  EXPECT_EQ(demo["counters"]["events_received"], 2001);
  EXPECT_EQ(j["jobs"][0]["job"], std::string(testing::kOddJob));
}

TEST_F(RouterTest, JobDetailHasEveryRankAndWindow) {
  const json d = get_json("/api/v1/jobs/demo-slow");
  EXPECT_EQ(d["job"], "demo-slow");
  EXPECT_EQ(d["windows"].size(), 4u);
  EXPECT_EQ(d["device_source"], "compute-proxy");
  ASSERT_EQ(d["ranks"].size(), 2u);
  const json& r0 = d["ranks"][0];
  EXPECT_EQ(r0["rank"], 0);
  EXPECT_EQ(r0["state"], "active");
  EXPECT_EQ(r0["verdict"], "data-starved");
  EXPECT_EQ(r0["cause"], "storage");
  EXPECT_TRUE(d["ranks"][1]["cause"].is_null());  // not data-starved
  EXPECT_EQ(r0["clock_warning"], false);
  EXPECT_EQ(d["ranks"][1]["clock_offset_seconds"], -90.0);
  EXPECT_EQ(d["ranks"][1]["clock_warning"], true);
  EXPECT_EQ(r0["step"], 120);
  EXPECT_EQ(r0["agent_dropped"], 3);
  EXPECT_EQ(r0["lost_batches"], 1);
  EXPECT_EQ(r0["late_events"], 2);
  for (const char* w : {"10s", "60s", "300s", "total"}) {
    ASSERT_TRUE(r0["windows"].contains(w)) << w;
    EXPECT_EQ(r0["windows"][w]["window"], w);
  }
  const json& m = r0["windows"]["60s"];
  for (const char* field : {"start_ns",
                            "end_ns",
                            "wall_seconds",
                            "compute_seconds",
                            "app_io_seconds",
                            "io_seconds",
                            "fetch_seconds",
                            "comm_seconds",
                            "unoverlapped_app_io_seconds",
                            "unoverlapped_io_seconds",
                            "unoverlapped_compute_seconds",
                            "unoverlapped_all_io_seconds",
                            "device_busy_seconds",
                            "data_stall_seconds",
                            "overlap_ratio",
                            "device_idle_ratio",
                            "data_stall_ratio",
                            "loader_io_seconds",
                            "loader_io_ratio",
                            "steps",
                            "step_seconds_p50",
                            "step_seconds_p95",
                            "steps_per_second",
                            "samples_per_second",
                            "read_bytes_per_second",
                            "write_bytes_per_second",
                            "read_ops_per_second",
                            "write_ops_per_second",
                            "launches",
                            "launch_seconds",
                            "launch_delay_seconds",
                            "short_kernels",
                            "long_launches",
                            "late_launch_starts",
                            "launch_idle_ratio",
                            "verdict",
                            "io_captured",
                            "launches_captured",
                            "cause"}) {
    EXPECT_TRUE(m.contains(field)) << field;
  }
  EXPECT_EQ(m["loader_io_ratio"], 0.9);
  EXPECT_EQ(m["io_captured"], true);
  EXPECT_EQ(m["read_bytes_per_second"], 256.0 * 1024 * 1024);
  EXPECT_EQ(m["write_ops_per_second"], 2.0);
  EXPECT_EQ(m["cause"], "storage");
  EXPECT_EQ(m["wall_seconds"], 60.0);
  EXPECT_EQ(m["steps"], 120);
  EXPECT_EQ(m["end_ns"], 1'700'000'000 * kS);
  ASSERT_EQ(r0["processes"].size(), 2u);
  EXPECT_EQ(r0["processes"][0]["role"], "main");
  EXPECT_EQ(r0["processes"][1]["role"], "worker");
  EXPECT_EQ(r0["processes"][0]["device_source"], "none");
  EXPECT_EQ(r0["processes"][0]["counters"]["events_received"], 0);
  EXPECT_EQ(d["ranks"][1]["state"], "silent");
}

TEST_F(RouterTest, EncodedJobIdsResolve) {
  std::string target = "/api/v1/jobs/a%2Fb%20c%3Fd%3D%22e%22%5C%0A%C3%BC";
  const json d = get_json(target);
  EXPECT_EQ(d["job"], std::string(testing::kOddJob));
  EXPECT_EQ(get(target + "/ranks/0/timeline").status, 200u);
  EXPECT_EQ(get("/api/v1/jobs/no-such-job").status, 404u);
  EXPECT_EQ(get("/api/v1/jobs/bad%zzescape").status, 400u);
}

TEST_F(RouterTest, Timeline) {
  const json t = get_json("/api/v1/jobs/demo-slow/ranks/0/timeline?seconds=5");
  EXPECT_EQ(backend_.last_timeline_seconds(), 5);
  EXPECT_EQ(t["job"], "demo-slow");
  EXPECT_EQ(t["rank"], 0);
  ASSERT_EQ(t["regions"].size(), 4u);
  EXPECT_EQ(t["regions"][0]["class"], "fetch");
  EXPECT_EQ(t["regions"][0]["classes"], json({"fetch", "app_io"}));
  EXPECT_EQ(t["regions"][1]["class"], "other");
  EXPECT_EQ(t["regions"][1]["open"], true);
  EXPECT_EQ(t["regions"][0]["loop_end"], true);
  EXPECT_EQ(t["regions"][1]["loop_end"], false);
  EXPECT_EQ(t["marks"][0]["name"], "epoch.start");
  ASSERT_EQ(t["peer_waits"].size(), 1u);
  EXPECT_EQ(t["peer_waits"][0]["waiting_for"], 3);
  EXPECT_LT(t["peer_waits"][0]["start_ns"].get<std::int64_t>(),
            t["peer_waits"][0]["end_ns"].get<std::int64_t>());
  ASSERT_EQ(t["threads"].size(), 4u);
  EXPECT_EQ(t["threads"][0]["role"], "main");
  EXPECT_FALSE(t["threads"][0].contains("label")) << "host threads carry no lane label";
  EXPECT_EQ(t["threads"][3]["role"], "worker");

  get_json("/api/v1/jobs/demo-slow/ranks/0/timeline");
  EXPECT_EQ(backend_.last_timeline_seconds(), 10);
  get_json("/api/v1/jobs/demo-slow/ranks/0/timeline?seconds=100000");
  EXPECT_EQ(backend_.last_timeline_seconds(), 60);
}

TEST_F(RouterTest, TimelineErrorsNameTheParameter) {
  for (const char* bad : {"seconds=abc", "seconds=-1", "seconds=0", "seconds=1.5", "seconds="}) {
    const json e = get_json(std::string("/api/v1/jobs/demo-slow/ranks/0/timeline?") + bad, 400);
    EXPECT_NE(e["error"].get<std::string>().find("seconds"), std::string::npos) << bad;
    EXPECT_EQ(e["status"], 400);
  }
  const json e = get_json("/api/v1/jobs/demo-slow/ranks/x1/timeline", 400);
  EXPECT_NE(e["error"].get<std::string>().find("rank"), std::string::npos);
  get_json("/api/v1/jobs/demo-slow/ranks/99999999999/timeline", 400);
  get_json("/api/v1/jobs/demo-slow/ranks/7/timeline", 404);
  get_json("/api/v1/jobs/nope/ranks/0/timeline", 404);
}

TEST_F(RouterTest, Series) {
  const json s =
      get_json("/api/v1/jobs/demo-slow/series?metric=data_stall_ratio&window=10s&seconds=30");
  EXPECT_EQ(backend_.last_series_window_ns(), 10 * kS);
  EXPECT_EQ(backend_.last_series_span_ns(), 30 * kS);
  EXPECT_EQ(s["metric"], "data_stall_ratio");
  EXPECT_EQ(s["window"], "10s");
  EXPECT_EQ(s["step_seconds"], 1.0);
  EXPECT_EQ(s["t"][1], 1'700'000'000.0);
  EXPECT_EQ(s["ranks"][0]["rank"], 0);
  EXPECT_EQ(s["ranks"][0]["values"][0], 0.61);
  EXPECT_TRUE(s["ranks"][0]["values"][1].is_null());
  EXPECT_TRUE(s["mean"][1].is_null());
  EXPECT_EQ(s["max"][1], 0.06);

  get_json("/api/v1/jobs/demo-slow/series?metric=steps_per_second&window=300s");
  EXPECT_EQ(backend_.last_series_span_ns(), 600 * kS);
  get_json("/api/v1/jobs/demo-slow/series?metric=steps_per_second&window=300s&seconds=99999");
  EXPECT_EQ(backend_.last_series_span_ns(), 3600 * kS);
}

TEST_F(RouterTest, SeriesAcceptsTotals) {
  const auto body = get_json("/api/v1/jobs/demo-slow/series?metric=data_stall_ratio&window=total");
  EXPECT_EQ(backend_.last_series_window_ns(), 0);
  EXPECT_EQ(body["window"], "total");
}

TEST_F(RouterTest, SeriesErrorsNameTheParameter) {
  const auto error_of = [this](const std::string& q) {
    return get_json("/api/v1/jobs/demo-slow/series?" + q, 400)["error"].get<std::string>();
  };
  EXPECT_NE(error_of("window=10s").find("metric"), std::string::npos);
  EXPECT_NE(error_of("metric=bogus&window=10s").find("metric"), std::string::npos);
  EXPECT_NE(error_of("metric=data_stall_ratio").find("window"), std::string::npos);
  EXPECT_NE(error_of("metric=data_stall_ratio&window=11s").find("window"), std::string::npos);
  EXPECT_NE(error_of("metric=data_stall_ratio&window=10s&seconds=x").find("seconds"),
            std::string::npos);
  EXPECT_NE(error_of("metric=data_stall_ratio&window=10%").find("query"), std::string::npos);
  get_json("/api/v1/jobs/nope/series?metric=data_stall_ratio&window=10s", 404);
}

// A collector tree head's backend: the job's series carry the ranks its
// nodes gave beside its own, and name a node that failed; with nothing to
// serve, its status goes out.
class HeadBackend : public testing::FakeBackend {
 public:
  using FakeBackend::FakeBackend;
  std::optional<RemoteSeries> remote_series(std::string_view job, std::string_view /*metric*/,
                                            std::string_view window, std::int64_t seconds,
                                            const Series* local) const override {
    asked = std::string(window) + "/" + std::to_string(seconds);
    if (job != "demo-slow") return std::nullopt;
    if (local == nullptr) return RemoteSeries{502, "no node gave it", {}, {}};
    RemoteSeries r;
    r.series = *local;
    r.series.ranks.push_back(2);
    r.series.values.push_back({0.5, 0.25});
    r.failed_nodes = {{"node-b", "cannot fetch the series from node 'node-b'"}};
    return r;
  }
  mutable std::string asked;
};

TEST(RouterTreeTest, SeriesAtAHeadCarryItsNodesRanksAndNameTheNodesThatFailed) {
  ServeConfig config;
  HeadBackend backend{testing::make_state(25)};
  ServeCounters counters;
  const Router router(config, backend, counters);
  const HttpResponse r = router.handle(HttpRequest{
      "GET", "/api/v1/jobs/demo-slow/series?metric=data_stall_ratio&window=10s&seconds=30", {}});
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(backend.asked, "10s/30");
  const json s = json::parse(r.body);
  ASSERT_EQ(s["ranks"].size(), 3u);
  EXPECT_EQ(s["ranks"][2]["rank"], 2);
  EXPECT_EQ(s["ranks"][2]["values"][1], 0.25);
  EXPECT_EQ(s["window"], "10s");
  EXPECT_EQ(s["failed_nodes"],
            json::parse(
                R"([{"node": "node-b", "error": "cannot fetch the series from node 'node-b'"}])"));
}

TEST_F(RouterTest, SeriesOfACollectorThatIsNoHeadNameNoFailedNodes) {
  const json s = get_json("/api/v1/jobs/demo-slow/series?metric=data_stall_ratio&window=10s");
  EXPECT_EQ(s["failed_nodes"], json::array());
}

TEST_F(RouterTest, Alerts) {
  const json a = get_json("/api/v1/alerts");
  ASSERT_EQ(a["alerts"].size(), 2u);
  const json& x = a["alerts"][0];
  EXPECT_EQ(x["id"], "DataStarved/demo-slow/0");
  EXPECT_EQ(x["state"], "firing");
  EXPECT_EQ(x["rank"], 0);
  EXPECT_EQ(x["value"], 0.61);
  EXPECT_EQ(x["labels"]["team"], "ml \"infra\"");
  EXPECT_EQ(x["annotations"]["summary"], "rank 0 starves");
  EXPECT_TRUE(x["resolved_at_ns"].is_null());
  EXPECT_TRUE(a["alerts"][1]["rank"].is_null());
  EXPECT_TRUE(a["alerts"][1]["fired_at_ns"].is_null());
  EXPECT_TRUE(a["alerts"][1]["verdict"].is_null());
}

TEST_F(RouterTest, MetricsIsPrometheusText) {
  const HttpResponse r = get("/metrics");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find("stallwatch_data_stall_seconds_total{"), std::string::npos);
}

TEST_F(RouterTest, MetricsFollowTheConfiguredPrometheusExport) {
  EXPECT_EQ(get("/metrics").body.find("stallwatch_data_stall_ratio{"), std::string::npos);
  config_.prometheus.per_rank_windows_ns = {10 * kS};
  const HttpResponse r = get("/metrics");
  EXPECT_NE(
      r.body.find(R"(stallwatch_data_stall_ratio{job_id="demo-slow",rank="0",window="10s"} 0.61)"),
      std::string::npos);
}

TEST_F(RouterTest, UnknownPathsMethodsAndTargets) {
  EXPECT_EQ(get("/api/v1/nope").status, 404u);
  EXPECT_EQ(get("/api/v2/jobs").status, 404u);
  EXPECT_EQ(get("/api/v1/jobs/demo-slow/extra").status, 404u);
  EXPECT_EQ(get("/nope").status, 404u);
  EXPECT_EQ(json::parse(get("/nope").body)["status"], 404);
  EXPECT_EQ(get("*").status, 400u);
  EXPECT_EQ(get("http://example.com/").status, 400u);
  const HttpResponse post = get("/api/v1/jobs", "POST");
  EXPECT_EQ(post.status, 405u);
  ASSERT_EQ(post.headers.size(), 1u);
  EXPECT_EQ(post.headers[0].second, "GET, HEAD");
  EXPECT_EQ(get("/healthz", "DELETE").status, 405u);
  EXPECT_EQ(get("/api/v1/stream").status, 426u);
  EXPECT_EQ(get("/api/v1/jobs", "HEAD").status, 200u);
}

TEST_F(RouterTest, StaticFilesAreServedWithTheirType) {
  const HttpResponse index = get("/");
  EXPECT_EQ(index.status, 200u);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_FALSE(index.no_store);
  EXPECT_NE(index.body.find("stallwatch"), std::string::npos);
  EXPECT_EQ(get("/app.js").content_type, "text/javascript");
  EXPECT_EQ(get("/app.js", "PUT").status, 405u);
  EXPECT_EQ(get("/missing.js").status, 404u);
  EXPECT_TRUE(get("/api/v1/jobs").no_store);
}

TEST_F(RouterTest, BearerTokenGuardsTheApiButNotHealthz) {
  config_.bearer_token = "s3cret";
  EXPECT_EQ(get("/api/v1/jobs").status, 401u);
  EXPECT_EQ(get("/metrics").status, 401u);
  EXPECT_EQ(get("/api/v1/jobs", "GET", "Bearer wrong").status, 401u);
  EXPECT_EQ(get("/api/v1/jobs", "GET", "Bearer s3cre").status, 401u);
  EXPECT_EQ(get("/api/v1/jobs", "GET", "Bearer s3cret2").status, 401u);
  EXPECT_EQ(get("/api/v1/jobs", "GET", "Basic s3cret").status, 401u);
  EXPECT_EQ(get("/api/v1/nope").status, 401u);
  EXPECT_EQ(get("/api/v1/jobs", "GET", "Bearer s3cret").status, 200u);
  EXPECT_EQ(get("/api/v1/jobs", "GET", "bearer   s3cret").status, 200u);
  EXPECT_EQ(get("/api/v1/jobs?token=s3cret").status, 200u);
  EXPECT_EQ(get("/metrics?token=s3cret").status, 200u);
  EXPECT_EQ(get("/healthz").status, 200u);
  EXPECT_EQ(get("/").status, 200u);
  const HttpResponse denied = get("/api/v1/alerts");
  ASSERT_EQ(denied.headers.size(), 1u);
  EXPECT_EQ(denied.headers[0].first, "WWW-Authenticate");
  EXPECT_TRUE(router().authorized(HttpRequest{"GET", "/api/v1/stream?token=s3cret", {}}));
  EXPECT_FALSE(router().authorized(HttpRequest{"GET", "/api/v1/stream?token=nope", {}}));
}

TEST_F(RouterTest, BeforeTheFirstTick) {
  backend_.publish(std::make_shared<PublishedState>());
  EXPECT_EQ(get_json("/api/v1/jobs")["jobs"].size(), 0u);
  EXPECT_EQ(get_json("/api/v1/status")["windows"], json({"total"}));
  get_json("/api/v1/jobs/demo-slow", 404);
  EXPECT_EQ(get("/metrics").status, 200u);
}

// A head replaces a node's timeline's peer_waits (matched over that node's
// ranks) with its own, keeping those that overlap the timeline.
TEST(WithPeerWaits, ReplacesTheNodesWaitsWithinTheTimeline) {
  Timeline t;
  t.job = "j";
  t.from_ns = 1000;
  t.to_ns = 2000;
  t.peer_waits = {{1100, 1200, 1}};
  const std::string node = timeline_json(t, nullptr);
  const json head = json::parse(with_peer_waits(node, {{500, 900, 3}, {1500, 1600, 3}}));
  ASSERT_EQ(head["peer_waits"].size(), 1u) << head.dump();
  EXPECT_EQ(head["peer_waits"][0]["start_ns"], 1500);
  EXPECT_EQ(head["peer_waits"][0]["end_ns"], 1600);
  EXPECT_EQ(head["peer_waits"][0]["waiting_for"], 3);
  EXPECT_EQ(head["from_ns"], 1000);
  EXPECT_EQ(head["job"], "j");
  EXPECT_TRUE(json::parse(with_peer_waits(node, {}))["peer_waits"].empty());
  EXPECT_EQ(with_peer_waits("not json", {{1, 2, 3}}), "not json");
}

}  // namespace
}  // namespace stallwatch::collector
