// SPDX-License-Identifier: MIT
// stallwatchd's /metrics against the real Prometheus tools (Debian
// `prometheus`): `promtool check metrics` on live scrapes with ranks, and a
// real Prometheus scraping the daemon every second with the shipped rules
// loaded, queried through its HTTP API: the counters' rates give the
// daemon's own data stall over the same span, the job aggregates are what
// the API shows, the shipped rules evaluate and fire, and every expression
// of the shipped Grafana dashboard runs. Two daemons of one job's nodes,
// scraped by one Prometheus, answer one query for the job's worst rank.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "daemon_process.h"
#include "external_tools.h"
#include "scripted_rank.h"

namespace stallwatch::test {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

const std::string kSource = STALLWATCH_TEST_SOURCE_DIR;

std::string url_encode(const std::string& s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Waits until the daemon reports the job's rank with a data_stall_ratio over `window`.
bool wait_for_rank(const DaemonProcess& d, const std::string& job, const std::string& window) {
  return wait_until(
      [&] {
        const auto res = d.get("/api/v1/jobs/" + job);
        if (res.status != 200) return false;
        const Json j = Json::parse(res.body);
        return !j["ranks"].empty() &&
               j["ranks"][0]["windows"][window]["data_stall_ratio"].is_number();
      },
      20s, 50ms);
}

std::string promtool_check(const DaemonProcess& daemon, const std::string& body,
                           const std::string& name) {
  const std::string path = daemon.dir() + "/" + name;
  std::ofstream(path) << body;
  std::string output;
  const int rc =
      run_command(std::string(STALLWATCH_TEST_PROMTOOL) + " check metrics < " + path, output);
  std::cout << "promtool check metrics on " << body.size() << " bytes (" << name << "): exit " << rc
            << " " << output << "\n";
  return rc == 0 ? std::string() : output.empty() ? "exit " + std::to_string(rc) : output;
}

TEST(PrometheusScrape, PromtoolAcceptsLiveScrapesWithRanks) {
  for (const bool everything : {false, true}) {
    DaemonOptions options;
    if (everything) {
      options.config_toml =
          "[prometheus]\nper_rank_windows = [\"10s\", \"60s\", \"300s\", \"total\"]\n"
          "job_windows = [\"10s\", \"total\"]\nrank_activity = true\nstep_histogram = true\n";
    }
    DaemonProcess daemon(options);
    ASSERT_TRUE(daemon.start()) << daemon.log();
    ScriptedRank r0(daemon.tcp_endpoint(), "promtool-job", 0, 0.5);
    ScriptedRank r1(daemon.tcp_endpoint(), "promtool-job", 1, 0.1);
    r0.start();
    r1.start();
    ASSERT_TRUE(wait_for_rank(daemon, "promtool-job", "10s")) << daemon.log();
    ASSERT_TRUE(wait_until(
        [&] {
          return daemon.get("/metrics")
                     .body.find(R"(stallwatch_steps_total{job_id="promtool-job",rank="1"} 0)") ==
                 std::string::npos;
        },
        10s, 100ms));
    const auto scrape = daemon.get("/metrics");
    ASSERT_EQ(scrape.status, 200);
    EXPECT_EQ(scrape.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_NE(
        scrape.body.find(R"(stallwatch_data_stall_seconds_total{job_id="promtool-job",rank="1"})"),
        std::string::npos);
    EXPECT_EQ(scrape.body.find("stallwatch_step_duration_seconds_bucket") != std::string::npos,
              everything);
    EXPECT_EQ(scrape.body.find(
                  R"(stallwatch_data_stall_ratio{job_id="promtool-job",rank="1",window="10s"})") !=
                  std::string::npos,
              everything);
    EXPECT_EQ(promtool_check(daemon, scrape.body, everything ? "all.txt" : "default.txt"), "");
  }
}

// A real Prometheus on loopback scraping daemons every second, with the
// shipped rules loaded.
class RealPrometheus {
 public:
  explicit RealPrometheus(int target_port) : RealPrometheus(std::vector<int>{target_port}) {}
  explicit RealPrometheus(const std::vector<int>& target_ports)
      : port_(free_tcp_port()),
        process_({{STALLWATCH_TEST_PROMETHEUS, "--config.file=" + dir_.path() + "/prometheus.yml",
                   "--storage.tsdb.path=" + dir_.path() + "/data",
                   "--web.listen-address=127.0.0.1:" + std::to_string(port_)},
                  {},
                  dir_.path() + "/prometheus.log"}) {
    std::filesystem::copy_file(kSource + "/systemd/stallwatch-rules.yml",
                               dir_.path() + "/stallwatch-rules.yml");
    std::ofstream(dir_.path() + "/prometheus.yml") << "global:\n"
                                                      "  scrape_interval: 1s\n"
                                                      "  evaluation_interval: 1s\n"
                                                      "rule_files:\n"
                                                      "  - stallwatch-rules.yml\n"
                                                      "scrape_configs:\n"
                                                      "  - job_name: stallwatch\n"
                                                      "    static_configs:\n"
                                                      "      - targets: [";
    for (std::size_t i = 0; i < target_ports.size(); ++i) {
      std::ofstream(dir_.path() + "/prometheus.yml", std::ios::app)
          << (i == 0 ? "" : ", ") << "'127.0.0.1:" << target_ports[i] << "'";
    }
    std::ofstream(dir_.path() + "/prometheus.yml", std::ios::app) << "]\n";
  }

  bool start() { return process_.start() && wait_http_ready(process_, port_, "/-/ready", 60s); }
  std::string output() { return process_.output(); }

  // GET /api/v1/<path>; the body's "data", or null when it did not succeed.
  Json api(const std::string& path) {
    const auto res = http_get(port_, "/api/v1/" + path);
    if (res.status != 200) return nullptr;
    const Json body = Json::parse(res.body, nullptr, false);
    if (!body.is_object() || body.value("status", "") != "success") return nullptr;
    return body["data"];
  }
  // The result of an instant query, at `time` (Unix seconds) when given.
  Json query(const std::string& promql, const std::string& time = {}) {
    const Json data =
        api("query?query=" + url_encode(promql) + (time.empty() ? "" : "&time=" + time));
    return data.is_object() ? data["result"] : Json();
  }

 private:
  TempDir dir_;
  int port_;
  ChildProcess process_;
};

double value_of(const Json& sample_value) {
  return std::stod(sample_value[1].get<std::string>());
}

struct Sample {
  std::string time;  // as Prometheus wrote it
  double value;
};

// The raw samples of a range-vector query's single series.
std::vector<Sample> raw_samples(const Json& result) {
  std::vector<Sample> out;
  if (!result.is_array() || result.size() != 1) return out;
  for (const Json& v : result[0]["values"]) {
    std::ostringstream time;
    time << std::setprecision(15) << v[0].get<double>();
    out.push_back(Sample{time.str(), value_of(v)});
  }
  return out;
}

TEST(PrometheusScrape, RatesOfTheCountersEqualTheDaemonsOwnStallAndJobAggregatesTheApis) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.log();
  // prom-job's rank waits for data half of each slot, then a fifth.
  ScriptedRank switching(daemon.tcp_endpoint(), "prom-job", 3, 0.5);
  ScriptedRank agg0(daemon.tcp_endpoint(), "agg-job", 0, 0.4);
  ScriptedRank agg1(daemon.tcp_endpoint(), "agg-job", 1, 0.1);
  switching.start();
  agg0.start();
  agg1.start();
  RealPrometheus prometheus(daemon.http_port());
  ASSERT_TRUE(prometheus.start()) << prometheus.output();
  const std::string wall = R"(stallwatch_wall_seconds_total{job_id="prom-job"})";
  const std::string stall = R"(stallwatch_data_stall_seconds_total{job_id="prom-job"})";

  // 12 s of the first share in Prometheus, then the second share.
  ASSERT_TRUE(wait_until(
      [&] {
        const Json r = prometheus.query(wall);
        return r.is_array() && r.size() == 1 && value_of(r[0]["value"]) >= 12;
      },
      60s, 200ms))
      << prometheus.output();
  switching.set_stall_share(0.2);
  ASSERT_TRUE(wait_until([&] { return switching.share_changed_at_ns() != 0; }, 5s, 10ms));
  const std::int64_t switch_ns = switching.share_changed_at_ns();

  const Json row = Json::parse(daemon.get("/api/v1/jobs/prom-job").body)["ranks"][0];
  const std::int64_t start_ns = row["start_ns"].get<std::int64_t>();
  const auto horizon = [&](double wall_seconds) {
    return start_ns + std::llround(wall_seconds * 1e9);
  };
  // Until Prometheus has scraped 8 s of finalized time past the switch; T
  // is that scrape's time.
  std::string t;
  ASSERT_TRUE(wait_until(
      [&] {
        const auto s = raw_samples(prometheus.query(wall + "[20s]"));
        if (s.empty() || horizon(s.back().value) < switch_ns + 8'000'000'000) return false;
        t = s.back().time;
        return true;
      },
      40s, 200ms))
      << prometheus.output();

  const Json ratio = prometheus.query("rate(" + stall + "[20s]) / rate(" + wall + "[20s])", t);
  ASSERT_TRUE(ratio.is_array() && ratio.size() == 1) << ratio.dump();
  const double promql = value_of(ratio[0]["value"]);
  const auto walls = raw_samples(prometheus.query(wall + "[20s]", t));
  const auto stalls = raw_samples(prometheus.query(stall + "[20s]", t));
  ASSERT_GE(walls.size(), 15u);
  ASSERT_EQ(walls.size(), stalls.size());
  const std::int64_t from_ns = horizon(walls.front().value);
  const std::int64_t to_ns = horizon(walls.back().value);
  ASSERT_LT(from_ns, switch_ns);
  ASSERT_GT(to_ns, switch_ns);

  // The daemon's own data stall over [from, to): its series of the totals
  // window ([start, t) at each t), a computation apart from the counters.
  const Json series = Json::parse(
      daemon.get("/api/v1/jobs/prom-job/series?metric=data_stall_seconds&window=total&seconds=120")
          .body);
  const auto total_at = [&](std::int64_t t_ns) {
    const Json& ts = series["t"];
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (std::llround(ts[i].get<double>() * 1e3) == t_ns / 1'000'000) {
        return series["ranks"][0]["values"][i].get<double>();
      }
    }
    ADD_FAILURE() << "no series point at " << t_ns;
    return std::nan("");
  };
  const double span_s = static_cast<double>(to_ns - from_ns) / 1e9;
  const double daemon_stall = (total_at(to_ns) - total_at(from_ns)) / span_s;
  // The schedule: 50% up to the switch, 20% after it, on whole slots.
  const double schedule = (0.5 * static_cast<double>(switch_ns - from_ns) +
                           0.2 * static_cast<double>(to_ns - switch_ns)) /
                          static_cast<double>(to_ns - from_ns);
  std::cout << "over " << span_s << " s of finalized time (" << walls.size() << " scrapes, switch "
            << static_cast<double>(switch_ns - from_ns) / 1e9 << " s in): PromQL rate ratio "
            << promql << ", daemon " << daemon_stall << ", schedule " << schedule << ", counters "
            << (stalls.back().value - stalls.front().value) /
                   (walls.back().value - walls.front().value)
            << "\n";
  EXPECT_NEAR(daemon_stall, schedule, 1e-6);
  EXPECT_NEAR(promql, daemon_stall, 0.02 * daemon_stall);
  EXPECT_GT(promql, 0.25);
  EXPECT_LT(promql, 0.45);

  // The job aggregates over the verdict window are what the API shows:
  // whole slots fill every window, so the values hold still between ticks.
  const Json summary = Json::parse(daemon.get("/api/v1/jobs/agg-job").body)["summary"]["60s"];
  for (const char* aggregate : {"mean", "max"}) {
    const Json r = prometheus.query(
        R"(stallwatch_job_data_stall_ratio{job_id="agg-job",window="60s",aggregate=")" +
        std::string(aggregate) + "\"}");
    ASSERT_TRUE(r.is_array() && r.size() == 1) << r.dump();
    EXPECT_NEAR(value_of(r[0]["value"]), summary[aggregate]["data_stall_ratio"].get<double>(), 1e-9)
        << aggregate;
  }
  EXPECT_NEAR(summary["mean"]["data_stall_ratio"].get<double>(), 0.25, 1e-9);
  const Json verdict = prometheus.query(R"(stallwatch_job_verdict{job_id="agg-job"})");
  ASSERT_EQ(verdict.size(), 1u);
  EXPECT_EQ(verdict[0]["metric"]["verdict"], summary["verdict"]);
  const Json active = prometheus.query(R"(stallwatch_job_ranks{job_id="agg-job",state="active"})");
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(value_of(active[0]["value"]), 2);

  // The shipped rules evaluate without error and DataStarved holds agg-job's
  // rank 0 (40%), not rank 1 (10%).
  Json rules;
  ASSERT_TRUE(wait_until(
      [&] {
        rules = prometheus.api("rules");
        return rules.is_object() && !rules["groups"].empty() &&
               rules["groups"][0]["rules"][0].contains("lastEvaluation");
      },
      10s, 200ms));
  for (const Json& rule : rules["groups"][0]["rules"])
    EXPECT_EQ(rule["health"], "ok") << rule.dump();
  const Json alerts = prometheus.api("alerts")["alerts"];
  std::set<std::string> starved;
  for (const Json& a : alerts) {
    if (a["labels"]["alertname"] == "DataStarved" && a["labels"]["job_id"] == "agg-job") {
      starved.insert(a["labels"]["rank"].get<std::string>());
    }
  }
  EXPECT_EQ(starved, std::set<std::string>{"0"}) << alerts.dump();

  // Every expression of the shipped Grafana dashboard runs on these series.
  const Json dashboard = Json::parse(read_file(kSource + "/systemd/stallwatch-grafana.json"));
  std::size_t exprs = 0;
  for (const Json& panel : dashboard["panels"]) {
    if (!panel.contains("targets")) continue;
    for (const Json& target : panel["targets"]) {
      std::string expr = target["expr"];
      for (const auto& [var, value] :
           {std::pair<std::string, std::string>{"$job", "agg-job|prom-job"},
            {"$rank", ".*"},
            {"$range", "20s"}}) {
        for (auto at = expr.find(var); at != std::string::npos; at = expr.find(var))
          expr.replace(at, var.size(), value);
      }
      const Json r = prometheus.query(expr, t);
      ++exprs;
      ASSERT_TRUE(r.is_array()) << panel["title"] << ": " << expr;
      // The daemon's own alerts need not be firing yet.
      if (expr.find("stallwatch_alert_state") == std::string::npos) {
        EXPECT_FALSE(r.empty()) << panel["title"] << ": " << expr;
      }
    }
  }
  EXPECT_GE(exprs, 15u);
}

// Two nodes of one job, each with its own daemon: a job_id and rank label on
// every per-rank series make the job's worst rank one query over both
// targets, with no relabelling.
TEST(PrometheusScrape, OneQueryFindsAJobsWorstRankAcrossTwoDaemons) {
  DaemonProcess node_a;
  DaemonProcess node_b;
  ASSERT_TRUE(node_a.start()) << node_a.log();
  ASSERT_TRUE(node_b.start()) << node_b.log();
  ScriptedRank r0(node_a.tcp_endpoint(), "two-nodes", 0, 0.1);
  ScriptedRank r1(node_a.tcp_endpoint(), "two-nodes", 1, 0.2);
  ScriptedRank r2(node_b.tcp_endpoint(), "two-nodes", 2, 0.6);
  ScriptedRank r3(node_b.tcp_endpoint(), "two-nodes", 3, 0.1);
  for (ScriptedRank* r : {&r0, &r1, &r2, &r3})
    r->start();
  RealPrometheus prometheus({node_a.http_port(), node_b.http_port()});
  ASSERT_TRUE(prometheus.start()) << prometheus.output();

  const std::string share = R"(rate(stallwatch_data_stall_seconds_total{job_id="two-nodes"}[10s]))"
                            R"( / rate(stallwatch_wall_seconds_total{job_id="two-nodes"}[10s]))";
  Json shares;
  ASSERT_TRUE(wait_until(
      [&] {
        shares = prometheus.query(share);
        if (!shares.is_array() || shares.size() != 4) return false;
        for (const Json& s : shares)
          if (!std::isfinite(value_of(s["value"]))) return false;
        return true;
      },
      60s, 250ms))
      << prometheus.output();
  std::set<std::string> instances;
  for (const Json& s : shares)
    instances.insert(s["metric"]["instance"].get<std::string>());
  EXPECT_EQ(instances.size(), 2u) << shares.dump();

  const Json worst = prometheus.query("topk(1, " + share + ")");
  ASSERT_TRUE(worst.is_array() && worst.size() == 1) << worst.dump();
  EXPECT_EQ(worst[0]["metric"]["rank"], "2") << worst.dump();
  EXPECT_EQ(worst[0]["metric"]["instance"], "127.0.0.1:" + std::to_string(node_b.http_port()));
  const Json job_max = prometheus.query("max by (job_id) (" + share + ")");
  ASSERT_TRUE(job_max.is_array() && job_max.size() == 1) << job_max.dump();
  std::cout << "worst rank of two-nodes across two daemons: rank 2 at "
            << value_of(job_max[0]["value"]) << " of its time waiting for data\n";
  EXPECT_GT(value_of(job_max[0]["value"]), 0.45);
  EXPECT_LT(value_of(job_max[0]["value"]), 0.75);
  const Json ranks = prometheus.query(
      R"(sum by (job_id) (stallwatch_job_ranks{job_id="two-nodes",state="active"}))");
  ASSERT_TRUE(ranks.is_array() && ranks.size() == 1) << ranks.dump();
  EXPECT_EQ(value_of(ranks[0]["value"]), 4);
}

}  // namespace
}  // namespace stallwatch::test
