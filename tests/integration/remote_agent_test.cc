// SPDX-License-Identifier: MIT
// Agents on other hosts, simulated on this machine: 127.0.0.2 is the
// collector's CURVE endpoint, the agents connect from 127.0.0.3 and name
// their host with the agent's test-only setting. Keys, refusals and their
// counts, the refusal of remote plaintext, and clock offsets per host.

#include <gtest/gtest.h>
#include <stallwatch/curve_key.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// `stallwatchd keygen --agent PATH`: PATH and PATH.pub; returns the public key.
std::string make_agent_key(const std::string& path) {
  ChildProcess keygen({{stallwatchd_path(), "keygen", "--agent", path}, {}, path + ".log"});
  EXPECT_TRUE(keygen.start());
  EXPECT_EQ(keygen.wait(10s), 0) << keygen.output();
  return std::string(wire::key_in_text(read_text(path + ".pub")));
}

json job_when_finished(const DaemonProcess& daemon, const std::string& job, std::size_t ranks) {
  json detail;
  wait_until(
      [&] {
        detail = get_json(daemon, "/api/v1/jobs/" + job);
        if (!detail.is_object() || detail["ranks"].size() != ranks) return false;
        for (const json& r : detail["ranks"]) {
          if (r["state"] != "finished") return false;
        }
        return true;
      },
      20s, 100ms);
  return detail;
}

std::uint64_t refused(const json& status, const char* reason) {
  return status["ingest"]["rejected_connections"].value(reason, std::uint64_t{0});
}

TEST(RemoteAgentTest, KeyedAgentsAreMeasuredAndEveryOtherClientIsRefusedAndCounted) {
  TempDir keys;
  const std::string dir = keys.path();
  const std::string agent_key = make_agent_key(dir + "/agent.key");
  const std::string stranger_key = make_agent_key(dir + "/stranger.key");
  ASSERT_TRUE(wire::is_z85_key(agent_key) && wire::is_z85_key(stranger_key));
  std::ofstream(dir + "/allowed.keys") << "# the one agent allowed\n" << agent_key << " node-b\n";
  DaemonOptions curve = short_window_options();
  curve.extra_args.insert(curve.extra_args.end(),
                          {"--curve", "tcp://127.0.0.2:*", "--allow-list", dir + "/allowed.keys",
                           "--state-dir", dir + "/state"});
  DaemonProcess secured(curve);
  ASSERT_TRUE(secured.start()) << secured.log();

  // The collector's key pair: made on first start, the secret readable by its owner only.
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/state/curve.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const json status = get_json(secured, "/api/v1/status");
  const std::string server_key = status["ingest"].value("curve_public_key", "");
  EXPECT_EQ(server_key, std::string(wire::key_in_text(read_text(dir + "/state/curve.pub"))));
  EXPECT_EQ(status["ingest"]["curve_allow_list"], 1);
  ASSERT_EQ(status["ingest"]["curve_endpoints"].size(), 1u);
  const std::string curve_endpoint = status["ingest"]["curve_endpoints"][0];
  ASSERT_EQ(curve_endpoint.rfind("tcp://127.0.0.2:", 0), 0u) << curve_endpoint;
  // Connect from 127.0.0.3, as an agent on another host would from its own address.
  const std::string from_node_b = "tcp://127.0.0.3:0;" + curve_endpoint.substr(6);

  const std::string secured_dir = secured.dir();
  ScriptedAgent remote({"starved",
                        4,
                        "remote",
                        0,
                        from_node_b,
                        {{"STALLWATCH_COLLECTOR_KEY", server_key},
                         {"STALLWATCH_AGENT_KEY_FILE", dir + "/agent.key"},
                         {"STALLWATCH_TEST_ONLY_HOST", "node-b"}}},
                       secured_dir);
  ScriptedAgent local({"overlapped", 4, "remote", 1, secured.ipc_endpoint()}, secured_dir);
  ScriptedAgent plaintext({"starved", 3, "intruder", 0, from_node_b}, secured_dir);
  ScriptedAgent wrong_server(
      {"starved", 3, "intruder", 1, from_node_b, {{"STALLWATCH_COLLECTOR_KEY", stranger_key}}},
      secured_dir);
  ScriptedAgent not_allowed({"starved",
                             3,
                             "intruder",
                             2,
                             from_node_b,
                             {{"STALLWATCH_COLLECTOR_KEY", server_key},
                              {"STALLWATCH_AGENT_KEY_FILE", dir + "/stranger.key"}}},
                            secured_dir);
  for (ScriptedAgent* a : {&remote, &local, &plaintext, &wrong_server, &not_allowed}) {
    ASSERT_TRUE(a->start());
  }
  for (ScriptedAgent* a : {&remote, &local, &plaintext, &wrong_server, &not_allowed}) {
    ASSERT_EQ(a->process().wait(30s), 0) << a->output();
  }

  // The healthy agents, remote and local, measured as always.
  const json detail = job_when_finished(secured, "remote", 2);
  ASSERT_TRUE(detail.is_object()) << secured.log();
  const auto remote_report = load_agent_report(remote.report_path());
  const auto local_report = load_agent_report(local.report_path());
  ASSERT_TRUE(remote_report && local_report);
  expect_rank_matches_report(detail["ranks"][0], *remote_report);
  expect_rank_matches_report(detail["ranks"][1], *local_report);
  EXPECT_EQ(detail["ranks"][0]["host"], "node-b");

  // Nothing of the others got in; each refusal is counted by reason.
  EXPECT_EQ(secured.get("/api/v1/jobs/intruder").status, 404);
  json after;
  ASSERT_TRUE(wait_until(
      [&] {
        after = get_json(secured, "/api/v1/status");
        // The plaintext agent counts as plaintext_client, or as handshake_failed
        // when it hung up before the collector read its greeting.
        return refused(after, "plaintext_client") + refused(after, "handshake_failed") > 0 &&
               refused(after, "wrong_server_key") > 0 && refused(after, "not_allowed") > 0;
      },
      10s, 100ms))
      << after["ingest"].dump();
  const auto samples = scrape_metrics(secured);
  for (const char* reason : {"wrong_server_key", "not_allowed"}) {
    const auto value =
        find_sample(samples, "stallwatch_ingest_rejected_connections_total", {{"reason", reason}});
    ASSERT_TRUE(value) << reason;
    EXPECT_GT(*value, 0) << reason;
  }
  EXPECT_NE(secured.log().find("last key refused: " + stranger_key), std::string::npos)
      << secured.log();
}

TEST(RemoteAgentTest, PlaintextOnAnAddressOtherHostsReachIsRefusedAtStart) {
  DaemonOptions options;
  options.extra_args = {"--ingest", "tcp://0.0.0.0:0"};
  DaemonProcess daemon(options);
  EXPECT_FALSE(daemon.start());
  EXPECT_NE(daemon.log().find("--insecure-plaintext-remote"), std::string::npos) << daemon.log();
}

// Two hosts, node-b's clock 90 s behind: its offset is measured within 5 ms,
// per-rank figures stay exact on each rank's own clock, and the job's span is
// that of the run, not 90 s longer.
TEST(RemoteAgentTest, AHostClockOffIsMeasuredAndTheJobViewIsUnaffected) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  const std::int64_t shift_ms = -90'000;
  ScriptedAgent a(
      {"starved", 4, "skew", 0, daemon.tcp_endpoint(), {{"STALLWATCH_TEST_ONLY_HOST", "node-a"}}},
      daemon.dir());
  ScriptedAgent b({"overlapped",
                   4,
                   "skew",
                   1,
                   daemon.tcp_endpoint(),
                   {{"STALLWATCH_TEST_ONLY_HOST", "node-b"},
                    {"STALLWATCH_TEST_ONLY_CLOCK_SHIFT_MS", std::to_string(shift_ms)}}},
                  daemon.dir());
  ASSERT_TRUE(a.start());
  ASSERT_TRUE(b.start());
  ASSERT_EQ(a.process().wait(30s), 0) << a.output();
  ASSERT_EQ(b.process().wait(30s), 0) << b.output();
  const json detail = job_when_finished(daemon, "skew", 2);
  ASSERT_TRUE(detail.is_object()) << daemon.log();

  const json status = get_json(daemon, "/api/v1/status");
  std::map<std::string, double> offsets;
  for (const json& h : status["hosts"])
    offsets[h["host"].get<std::string>()] = h["clock_offset_seconds"].get<double>();
  ASSERT_EQ(offsets.count("node-a"), 1u) << status["hosts"].dump();
  ASSERT_EQ(offsets.count("node-b"), 1u) << status["hosts"].dump();
  EXPECT_NEAR(offsets["node-a"], 0.0, 0.005);
  EXPECT_NEAR(offsets["node-b"], static_cast<double>(shift_ms) / 1e3, 0.005);
  EXPECT_NEAR(detail["ranks"][1]["clock_offset_seconds"].get<double>(), offsets["node-b"], 1e-9);
  // The rank rows say which host is past the warning threshold (the web job
  // view and stallwatch top show it).
  EXPECT_EQ(detail["ranks"][0]["clock_warning"], false);
  EXPECT_EQ(detail["ranks"][1]["clock_warning"], true);
  const auto samples = scrape_metrics(daemon);
  const auto gauge =
      find_sample(samples, "stallwatch_host_clock_offset_seconds", {{"host", "node-b"}});
  ASSERT_TRUE(gauge);
  EXPECT_NEAR(*gauge, static_cast<double>(shift_ms) / 1e3, 0.005);

  // Per-rank metrics: exact on the rank's own clock, as without a shift.
  const auto report_a = load_agent_report(a.report_path());
  const auto report_b = load_agent_report(b.report_path());
  ASSERT_TRUE(report_a && report_b);
  expect_rank_matches_report(detail["ranks"][0], *report_a);
  expect_rank_matches_report(detail["ranks"][1], *report_b);

  // The job: it starts when its ranks did, on the collector's clock, and its
  // total window spans the run (about 4 s), not 94 s.
  const auto rank_a_start = detail["ranks"][0]["start_ns"].get<std::int64_t>();
  EXPECT_LT(std::llabs(detail["start_ns"].get<std::int64_t>() - rank_a_start), 2'000'000'000)
      << detail["start_ns"] << " vs " << rank_a_start;
  const json& total = detail["summary"]["total"]["mean"];
  const auto span_ns = total["end_ns"].get<std::int64_t>() - total["start_ns"].get<std::int64_t>();
  EXPECT_LT(span_ns, 10'000'000'000) << total.dump();
}

}  // namespace
}  // namespace stallwatch::test
