// SPDX-License-Identifier: MIT
// The HTTP sinks over real TLS: a local HTTPS server with a throw-away CA.
// A refused certificate is a failed attempt like any other: counted, logged
// once, and the alert retried with backoff until it goes through.

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "alertmanager_sink.h"
#include "alerts/sink_worker.h"
#include "https_server.h"
#include "webhook_sink.h"

namespace stallwatch::collector {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kS;

Alert firing_alert(int rank = 0) {
  Alert a;
  a.id = "DataStarved/demo/" + std::to_string(rank);
  a.name = "DataStarved";
  a.phase = AlertPhase::kFiring;
  a.severity = "warning";
  a.job = "demo";
  a.rank = rank;
  a.metric = "data_stall_ratio";
  a.window = "60s";
  a.value = 0.61;
  a.threshold = 0.3;
  a.annotations = {{"summary", "Rank is starved"}};
  a.active_since_ns = kT0;
  a.fired_at_ns = kT0;
  return a;
}

SinkWorkerOptions retrying(std::string name) {
  SinkWorkerOptions o;
  o.name = std::move(name);
  o.kind = "webhook";
  o.max_attempts = 100;
  o.initial_backoff = 50ms;
  o.max_backoff = 200ms;
  return o;
}

WebhookSinkConfig webhook(const std::string& url, const std::string& ca_file) {
  WebhookSinkConfig c;
  c.url = url;
  c.tls.ca_file = ca_file;
  c.delivery.timeout_ns = 5 * kS;
  return c;
}

// Captures what the sinks log while the test runs.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100)) {
    spdlog::default_logger()->sinks().push_back(sink_);
  }
  ~LogCapture() { spdlog::default_logger()->sinks().pop_back(); }
  int count(std::string_view text) const {
    int n = 0;
    for (const std::string& line : sink_->last_formatted())
      n += line.find(text) != std::string::npos ? 1 : 0;
    return n;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

TEST(HttpsSinkTest, WebhookDeliversOverHttpsWithTheConfiguredCa) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  WebhookSink sink(webhook(server.url() + "/hook", test::test_pki().ca), "https://sw.example");
  const Alert alerts[] = {firing_alert()};
  EXPECT_EQ(sink.deliver(alerts), "");
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  const Json request = Json::parse(seen[0]);
  EXPECT_EQ(request.at("path"), "/hook");
  EXPECT_EQ(request.at("headers").at("content-type"), "application/json");
  EXPECT_EQ(Json::parse(request.at("body").get<std::string>()).at("version"), "4");
}

TEST(HttpsSinkTest, UntrustedCertificateIsRetriedUntilTheCaIsRight) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  test::TempDir dir;
  const std::string ca_file = dir.path() + "/ca.pem";
  std::filesystem::copy_file(test::test_pki().other_ca, ca_file);
  LogCapture log;
  SinkWorker worker(std::make_unique<WebhookSink>(webhook(server.url(), ca_file), ""),
                    retrying("tls-webhook"));
  worker.start();
  ASSERT_TRUE(worker.enqueue(firing_alert()));
  ASSERT_TRUE(test::wait_until([&] { return worker.stats().failed_attempts >= 3; }, 20s));
  EXPECT_EQ(worker.stats().sent, 0u);
  EXPECT_TRUE(server.requests().empty());

  std::filesystem::copy_file(test::test_pki().ca, ca_file,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_TRUE(test::wait_until([&] { return worker.stats().sent == 1; }, 20s));
  worker.stop();
  const SinkStats stats = worker.stats();
  EXPECT_GE(stats.failed_attempts, 3u);
  EXPECT_EQ(stats.dropped_retries, 0u);
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(log.count("tls-webhook failed to deliver"), 1);
  EXPECT_EQ(log.count("not trusted"), 1);
  EXPECT_EQ(log.count("tls-webhook delivers again"), 1);
}

TEST(HttpsSinkTest, WrongHostCertificateIsRetriedUntilTheServerIsFixed) {
  const test::TestPki& pki = test::test_pki();
  test::HttpsServerOptions options;
  options.cert = pki.wrong_host_cert;
  options.key = pki.wrong_host_key;
  test::HttpsServer server(options);
  ASSERT_TRUE(server.started()) << server.error();
  SinkWorker worker(std::make_unique<WebhookSink>(webhook(server.url(), pki.ca), ""),
                    retrying("wrong-host"));
  worker.start();
  ASSERT_TRUE(worker.enqueue(firing_alert()));
  ASSERT_TRUE(test::wait_until([&] { return worker.stats().failed_attempts >= 2; }, 20s));
  EXPECT_EQ(worker.stats().sent, 0u);
  EXPECT_TRUE(server.requests().empty());

  server.serve(pki.server_cert, pki.server_key);
  ASSERT_TRUE(test::wait_until([&] { return worker.stats().sent == 1; }, 20s));
  worker.stop();
  EXPECT_EQ(worker.stats().dropped_retries, 0u);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(HttpsSinkTest, AlertmanagerSinkUsesMutualTls) {
  const test::TestPki& pki = test::test_pki();
  test::HttpsServerOptions options;
  options.client_ca = pki.ca;
  test::HttpsServer server(options);
  ASSERT_TRUE(server.started()) << server.error();
  AlertmanagerSinkConfig c;
  c.url = server.url() + "/am/";
  c.tls = {pki.ca, pki.client_cert, pki.client_key};
  AlertmanagerSink sink(c, "");
  const Alert alerts[] = {firing_alert()};
  EXPECT_EQ(sink.deliver(alerts), "");
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  const Json request = Json::parse(seen[0]);
  EXPECT_EQ(request.at("path"), "/am/api/v2/alerts");
  EXPECT_EQ(request.at("client"), "stallwatch test client");

  c.tls.client_cert.clear();
  c.tls.client_key.clear();
  AlertmanagerSink without_cert(c, "");
  EXPECT_NE(without_cert.deliver(alerts), "");
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(HttpsSinkTest, SlackAndPagerDutyFormatsPostOneRequestPerAlert) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  WebhookSinkConfig slack = webhook(server.url() + "/slack", test::test_pki().ca);
  slack.format = WebhookFormat::kSlack;
  const Alert two[] = {firing_alert(0), firing_alert(1)};
  EXPECT_EQ(WebhookSink(slack, "https://sw.example").deliver(two), "");

  WebhookSinkConfig pd = webhook(server.url() + "/v2/enqueue", test::test_pki().ca);
  pd.format = WebhookFormat::kPagerDuty;
  pd.routing_key = "R0UT1NG";
  WebhookSink pagerduty(pd, "https://sw.example");
  Alert fired = firing_alert(0);
  Alert cleared = fired;
  cleared.phase = AlertPhase::kResolved;
  cleared.resolved_at_ns = kT0 + 60 * kS;
  EXPECT_EQ(pagerduty.deliver(std::span<const Alert>(&fired, 1)), "");
  EXPECT_EQ(pagerduty.deliver(std::span<const Alert>(&cleared, 1)), "");

  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 4u);
  for (int i : {0, 1}) {
    const Json r = Json::parse(seen[i]);
    EXPECT_EQ(r.at("path"), "/slack");
    const Json body = Json::parse(r.at("body").get<std::string>());
    EXPECT_NE(body.at("text").get<std::string>().find("rank " + std::to_string(i)),
              std::string::npos);
    EXPECT_TRUE(body.at("blocks").is_array());
  }
  const Json trigger = Json::parse(Json::parse(seen[2]).at("body").get<std::string>());
  const Json resolve = Json::parse(Json::parse(seen[3]).at("body").get<std::string>());
  EXPECT_EQ(trigger.at("event_action"), "trigger");
  EXPECT_EQ(resolve.at("event_action"), "resolve");
  EXPECT_EQ(trigger.at("dedup_key"), resolve.at("dedup_key"));
  EXPECT_EQ(resolve.at("routing_key"), "R0UT1NG");
}

TEST(HttpsSinkTest, RetryPostsOnlyTheAlertsThatDidNotGoThrough) {
  // Rank 0's message goes through, rank 1's is refused once: the retry of
  // the batch must post rank 1 only, never page rank 0 twice.
  test::HttpsServerOptions options;
  options.fail_requests = {2};
  test::HttpsServer server(options);
  ASSERT_TRUE(server.started()) << server.error();
  WebhookSinkConfig slack = webhook(server.url() + "/slack", test::test_pki().ca);
  slack.format = WebhookFormat::kSlack;
  WebhookSink sink(slack, "https://sw.example");
  const Alert two[] = {firing_alert(0), firing_alert(1)};
  EXPECT_NE(sink.deliver(two), "");
  EXPECT_EQ(sink.deliver(two), "");
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 3u);
  const auto rank_of = [&](std::size_t i) {
    const Json body = Json::parse(Json::parse(seen[i]).at("body").get<std::string>());
    return body.at("text").get<std::string>().find("rank 0") != std::string::npos ? 0 : 1;
  };
  EXPECT_EQ(rank_of(0), 0);
  EXPECT_EQ(rank_of(1), 1);
  EXPECT_EQ(rank_of(2), 1);
}

}  // namespace
}  // namespace stallwatch::collector
