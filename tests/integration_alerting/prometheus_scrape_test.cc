// stallwatchd's /metrics against the real Prometheus tools (Debian
// `prometheus`): `promtool check metrics` on a live scrape with ranks, and a
// real Prometheus scraping the daemon every second, queried through its HTTP
// API for a scripted job's data stall.

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "daemon_process.h"
#include "external_tools.h"
#include "scripted_rank.h"

namespace stallwatch::test {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

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

TEST(PrometheusScrape, PromtoolAcceptsALiveScrapeWithRanks) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedRank r0(daemon.tcp_endpoint(), "promtool-job", 0, 0.5);
  ScriptedRank r1(daemon.tcp_endpoint(), "promtool-job", 1, 0.1);
  r0.start();
  r1.start();
  ASSERT_TRUE(wait_for_rank(daemon, "promtool-job", "10s")) << daemon.log();
  const auto scrape = daemon.get("/metrics");
  ASSERT_EQ(scrape.status, 200);
  EXPECT_EQ(scrape.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(scrape.body.find(
                "stallwatch_data_stall_ratio{job_id=\"promtool-job\",rank=\"1\",window=\"10s\"}"),
            std::string::npos);
  const std::string path = daemon.dir() + "/scrape.txt";
  std::ofstream(path) << scrape.body;
  std::string output;
  const int rc =
      run_command(std::string(STALLWATCH_TEST_PROMTOOL) + " check metrics < " + path, output);
  EXPECT_EQ(rc, 0) << output;
  std::cout << "promtool check metrics on " << scrape.body.size() << " bytes: exit " << rc << " "
            << output << "\n";
}

TEST(PrometheusScrape, PrometheusQueryReturnsTheScriptedDataStall) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedRank rank(daemon.tcp_endpoint(), "prom-job", 3, 0.4);
  rank.start();

  TempDir dir;
  const int port = free_tcp_port();
  const std::string config = dir.path() + "/prometheus.yml";
  std::ofstream(config) << "global:\n"
                           "  scrape_interval: 1s\n"
                           "  evaluation_interval: 1s\n"
                           "scrape_configs:\n"
                           "  - job_name: stallwatch\n"
                           "    static_configs:\n"
                           "      - targets: ['127.0.0.1:"
                        << daemon.http_port() << "']\n";
  ChildProcess prometheus({{STALLWATCH_TEST_PROMETHEUS, "--config.file=" + config,
                            "--storage.tsdb.path=" + dir.path() + "/data",
                            "--web.listen-address=127.0.0.1:" + std::to_string(port)},
                           {},
                           dir.path() + "/prometheus.log"});
  ASSERT_TRUE(prometheus.start());
  ASSERT_TRUE(wait_http_ready(prometheus, port, "/-/ready", 60s)) << prometheus.output();

  const std::string query = "stallwatch_data_stall_ratio{job_id=\"prom-job\",window=\"10s\"}";
  Json result;
  ASSERT_TRUE(wait_until(
      [&] {
        const auto res = http_get(port, "/api/v1/query?query=" + url_encode(query));
        if (res.status != 200) return false;
        const Json body = Json::parse(res.body);
        if (body["status"] != "success" || body["data"]["result"].empty()) return false;
        result = body["data"]["result"];
        return true;
      },
      30s, 200ms))
      << prometheus.output();
  std::cout << "Prometheus answered " << query << " with " << result.dump() << "\n";
  ASSERT_EQ(result.size(), 1u);
  EXPECT_EQ(result[0]["metric"]["job_id"], "prom-job");
  EXPECT_EQ(result[0]["metric"]["rank"], "3");
  EXPECT_EQ(result[0]["metric"]["job"], "stallwatch");
  // 40 ms of every 100 ms slot waits for data; whole slots fill the window.
  EXPECT_NEAR(std::stod(result[0]["value"][1].get<std::string>()), 0.4, 1e-9);

  // The same series through a PromQL aggregation, as the dashboards use it.
  const auto avg = http_get(
      port, "/api/v1/query?query=" +
                url_encode("avg by (job_id) (stallwatch_device_idle_ratio{window=\"10s\"})"));
  ASSERT_EQ(avg.status, 200);
  const Json avg_body = Json::parse(avg.body);
  std::cout << "avg by (job_id) device_idle_ratio: " << avg_body["data"]["result"].dump() << "\n";
  ASSERT_EQ(avg_body["data"]["result"].size(), 1u);
  EXPECT_NEAR(std::stod(avg_body["data"]["result"][0]["value"][1].get<std::string>()), 0.4, 1e-9);
}

}  // namespace
}  // namespace stallwatch::test
