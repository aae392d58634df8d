// SPDX-License-Identifier: MIT
// An alert that was firing when stallwatchd crashed fires again after the
// restart (same --journal) as the same incident: its original start time, and
// no second page to a webhook; the incident's end is still notified once.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "daemon_process.h"
#include "http_receiver.h"
#include "scripted_rank.h"

namespace stallwatch::test {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kJob = "itest-restart";

Json data_starved(const DaemonProcess& daemon) {
  const auto res = daemon.get("/api/v1/alerts");
  if (res.status != 200) return nullptr;
  const Json body = Json::parse(res.body, nullptr, false);
  if (!body.is_object()) return nullptr;
  for (const auto& a : body["alerts"]) {
    if (a.value("name", "") == "DataStarved") return a;
  }
  return nullptr;
}

std::string status_of(const ReceivedRequest& request) {
  const Json body = Json::parse(request.body, nullptr, false);
  return body.is_object() ? body.value("status", "") : "";
}

TEST(AlertRestart, FiringAlertResumesAfterACrashWithoutASecondPage) {
  TempDir journal;
  HttpReceiver hook;
  DaemonOptions options;
  options.config_toml = R"([engine]
windows = ["2s", "10s"]
verdict_window = "2s"

[alerts]
[[alerts.rule]]
name = "DataStarved"
metric = "data_stall_ratio"
window = "2s"
above = 0.3
clear = 0.25
for = "1s"

[[alerts.webhook]]
url = ")" + hook.url() + R"(/hook"
)";
  options.extra_args = {"--journal", journal.path() + "/journal"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedRank rank(daemon.tcp_endpoint(), kJob, 0, 0.6);
  rank.start();

  Json before;
  ASSERT_TRUE(wait_until(
      [&] {
        before = data_starved(daemon);
        return before.is_object() && before.value("state", "") == "firing";
      },
      30s, 20ms))
      << daemon.log();
  ASSERT_TRUE(hook.wait_for(1, 10s));

  ASSERT_EQ(daemon.stop(SIGKILL), 128 + SIGKILL);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  Json after;
  ASSERT_TRUE(wait_until(
      [&] {
        after = data_starved(daemon);
        return after.is_object() && after.value("state", "") == "firing";
      },
      30s, 20ms))
      << daemon.log();
  EXPECT_EQ(after["active_since_ns"], before["active_since_ns"]) << after.dump();
  EXPECT_EQ(after["fired_at_ns"], before["fired_at_ns"]) << after.dump();
  // Still starved for a while: a second page would have come by now.
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(data_starved(daemon).value("state", ""), "firing");
  EXPECT_EQ(hook.count(), 1u);

  rank.set_stall_share(0.05);
  ASSERT_TRUE(hook.wait_for(2, 30s)) << daemon.log();
  rank.stop();
  const auto requests = hook.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(status_of(requests[0]), "firing");
  EXPECT_EQ(status_of(requests[1]), "resolved");
}

}  // namespace
}  // namespace stallwatch::test
