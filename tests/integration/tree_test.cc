// SPDX-License-Identifier: MIT
// The collector tree between real processes: node daemons report their ranks
// over CURVE to a head (127.0.0.2), from 127.0.0.3 and 127.0.0.4 as nodes on
// other hosts would. The same crafted batches go to a single collector and
// through the tree; the head's rank rows equal the single collector's, field
// by field. A node that dies turns its ranks silent at the head and comes
// back; a head that dies costs its nodes nothing but counted unsent reports;
// a remote rank's timeline comes from its node, over https when the node
// serves TLS; a nested head forwards; a job's series and its ranks' top files
// at a head are its nodes'.

#include <gtest/gtest.h>
#include <stallwatch/curve_key.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "crafted_frames.h"
#include "http_client/http_client.h"
#include "https_server.h"
#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr const char* kJob = "tree";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// What only the collector that received the batches can know: its own
// receive times and its estimate of the agent host's clock.
void strip_collector_clock(json& j) {
  if (j.is_object()) {
    j.erase("last_seen_ns");
    j.erase("clock_offset_seconds");
    j.erase("clock_warning");
    for (auto& [key, value] : j.items())
      strip_collector_clock(value);
  } else if (j.is_array()) {
    for (json& v : j)
      strip_collector_clock(v);
  }
}

json ranks_of(const DaemonProcess& daemon) {
  json detail = get_json(daemon, std::string("/api/v1/jobs/") + kJob);
  if (!detail.is_object()) return nullptr;
  json ranks = detail["ranks"];
  strip_collector_clock(ranks);
  return ranks;
}

json rank_state(const DaemonProcess& daemon, int rank) {
  const json row = rank_row(daemon, kJob, rank);
  return row.is_object() ? row["state"] : json();
}

// A head on 127.0.0.2 with CURVE; `extra` for an upstream of its own,
// `config_toml` added to its configuration file.
struct Head {
  explicit Head(const std::string& state_dir, std::vector<std::string> extra = {},
                std::string config_toml = {}) {
    DaemonOptions o = short_window_options();
    o.config_toml += config_toml;
    o.extra_args = {"--tree-listen", "tcp://127.0.0.2:*", "--state-dir", state_dir};
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    daemon = std::make_unique<DaemonProcess>(o);
    if (!daemon->start()) return;
    key = std::string(wire::key_in_text(read_text(state_dir + "/curve.pub")));
    wait_until(
        [&] {
          json status = get_json(*daemon, "/api/v1/status");
          if (!status.is_object() || status["tree"]["curve_listen"].empty()) return false;
          endpoint = status["tree"]["curve_listen"][0].get<std::string>();
          return true;
        },
        10s, 50ms);
  }
  // The upstream a node on `from` uses to reach this head.
  std::vector<std::string> upstream_args(const std::string& from, const std::string& node) const {
    return {"--upstream",     "tcp://" + from + ":0;" + endpoint.substr(6),
            "--upstream-key", key,
            "--node",         node};
  }
  std::unique_ptr<DaemonProcess> daemon;
  std::string key;
  std::string endpoint;
};

std::unique_ptr<DaemonProcess> start_node(const Head& head, const std::string& from,
                                          const std::string& name, const std::string& state_dir,
                                          std::vector<std::string> extra = {},
                                          std::string config_toml = {}) {
  DaemonOptions o = short_window_options();
  o.config_toml += config_toml;
  o.extra_args = head.upstream_args(from, name);
  o.extra_args.insert(o.extra_args.end(), {"--state-dir", state_dir});
  o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
  auto node = std::make_unique<DaemonProcess>(o);
  EXPECT_TRUE(node->start()) << node->log();
  return node;
}

// Batches of ranks 0..3, `count` per rank, 100 ms apart, ending now. With
// `collective`: a data-parallel all_reduce every step, where ranks 0..2 call
// it 20..50 ms into the step and rank 3 (slow) 90..98 ms in, so the others
// wait for rank 3 for their whole call. The 40 ms between them keep the
// matching exact whatever each collector's clock estimate (a few ms here).
// With `files`: each rank reads its own shard (top files).
std::vector<std::vector<Frame>> crafted_batches(int count, std::uint64_t first_seq,
                                                bool collective = false, bool files = false) {
  std::vector<std::vector<Frame>> out(4);
  const std::int64_t now = wall_clock_ns();
  for (int i = 0; i < count; ++i) {
    for (int rank = 0; rank < 4; ++rank) {
      CraftedBatch b;
      b.job = kJob;
      b.rank = rank;
      b.pid = 5000 + rank;
      b.seq = first_seq + static_cast<std::uint64_t>(i);
      b.sent_at_ns = now - (count - 1 - i) * 100 * kMs;
      if (collective) {
        b.comm_start_ns = (rank == 3 ? 90 : 20) * kMs;
        b.comm_dur_ns = (rank == 3 ? 8 : 30) * kMs;
      }
      if (files) b.file_path = "/data/shard-" + std::to_string(rank) + ".bin";
      out[static_cast<std::size_t>(rank)].push_back(encode_batch(b));
    }
  }
  return out;
}

json series_of(const DaemonProcess& daemon, const std::string& query) {
  return get_json(daemon, std::string("/api/v1/jobs/") + kJob + "/series?" + query);
}

// Series of the job over several metrics and windows, 30 s of them.
const std::vector<std::string> kSeriesQueries = {
    "metric=data_stall_ratio&window=2s&seconds=30",
    "metric=steps_per_second&window=5s&seconds=30",
    "metric=fetch_seconds&window=total&seconds=30",
};

// The times of the first series' "t" that every series has, less the newest
// of them: a daemon's series ends at its own now, so answers fetched a step
// apart (as on a busy machine the fetches of a comparison can be) are a point
// apart at each end, and a head's newest point lacks the ranks of a node whose
// answer ended a step before the head's (merge_series). At the times they
// share, they are equal.
json common_times(const std::vector<const json*>& all) {
  json out = json::array();
  for (const json& t : (*all.front())["t"]) {
    bool everywhere = true;
    for (const json* s : all)
      everywhere =
          everywhere && std::find((*s)["t"].begin(), (*s)["t"].end(), t) != (*s)["t"].end();
    if (everywhere) out.push_back(t);
  }
  if (!out.empty()) out.erase(out.end() - 1);
  return out;
}

// `series` at `times` only (each one of its "t").
json at_times(const json& series, const json& times) {
  std::vector<std::size_t> keep;
  for (std::size_t p = 0; p < series["t"].size(); ++p) {
    if (std::find(times.begin(), times.end(), series["t"][p]) != times.end()) keep.push_back(p);
  }
  auto pick = [&](const json& values) {
    json out = json::array();
    for (std::size_t p : keep)
      out.push_back(values[p]);
    return out;
  };
  json out = series;
  out["t"] = pick(series["t"]);
  out["mean"] = pick(series["mean"]);
  out["max"] = pick(series["max"]);
  for (json& r : out["ranks"])
    r["values"] = pick(r["values"]);
  return out;
}

// Points of `series` with a value for every rank.
std::size_t full_points(const json& series) {
  std::size_t n = 0;
  for (std::size_t p = 0; p < series["t"].size(); ++p) {
    bool all = true;
    for (const json& r : series["ranks"])
      all = all && r["values"][p].is_number();
    n += all ? 1 : 0;
  }
  return n;
}

json peer_waits_of(const DaemonProcess& daemon, int rank) {
  return get_json(daemon, std::string("/api/v1/jobs/") + kJob + "/ranks/" + std::to_string(rank) +
                              "/timeline")["peer_waits"];
}

// A job-level rule like the default JobHeldBack, over the 5 s window and
// without its minute of hysteresis.
constexpr const char* kHeldBackRule = R"(
[alerts]
[[alerts.rule]]
name = "JobHeldBack"
metric = "straggler_cost_ratio"
scope = "job"
window = "5s"
above = 0.1
clear = 0.05
for = "0s"
)";

// A data-parallel job whose slow rank 3 is on node B and whose waiting ranks
// 0 and 1 are on node A (2 on B): the head matches the collectives across
// the nodes, so every rank's row (peer_wait_seconds and verdicts included),
// the job's held_back and each timeline's peer_waits equal the single
// collector's, and the head's JobHeldBack rule fires. Each rank reads a file
// of its own: its top files at the heads are its node's. The job's series at
// both heads are the single collector's, rank by rank and point by point;
// with node B down, they keep node A's ranks and name node B.
TEST(TreeTest, HeadServesNodesRanksEqualToOneCollectorAndANestedHeadForwardsThem) {
  TempDir dir;
  Head top(dir.path() + "/top");
  ASSERT_TRUE(top.daemon && top.daemon->running() && !top.endpoint.empty());
  Head head(dir.path() + "/head", top.upstream_args("127.0.0.5", "mid"), kHeldBackRule);
  ASSERT_TRUE(head.daemon && head.daemon->running() && !head.endpoint.empty())
      << head.daemon->log();
  auto node_a = start_node(head, "127.0.0.3", "node-a", dir.path() + "/a");
  auto node_b = start_node(head, "127.0.0.4", "node-b", dir.path() + "/b");
  DaemonProcess single(short_window_options());
  ASSERT_TRUE(single.start()) << single.log();

  FramePusher to_single(single.tcp_endpoint());
  FramePusher to_a(node_a->tcp_endpoint());
  FramePusher to_b(node_b->tcp_endpoint());
  const auto batches = crafted_batches(12, 0, true, true);
  for (std::size_t i = 0; i < batches[0].size(); ++i) {
    for (int rank = 0; rank < 4; ++rank) {
      const Frame& f = batches[static_cast<std::size_t>(rank)][i];
      ASSERT_TRUE(to_single.send(f));
      ASSERT_TRUE((rank < 2 ? to_a : to_b).send(f));
    }
  }

  json expected;
  json at_head;
  json at_top;
  ASSERT_TRUE(wait_until(
      [&] {
        expected = ranks_of(single);
        at_head = ranks_of(*head.daemon);
        at_top = ranks_of(*top.daemon);
        return expected.is_array() && expected.size() == 4 && at_head == expected &&
               at_top == expected;
      },
      10s, 50ms))
      << "single: " << expected.dump() << "\nhead: " << at_head.dump() << "\ntop: " << at_top.dump()
      << "\nhead status: " << get_json(*head.daemon, "/api/v1/status")["tree"].dump()
      << "\nnode status: " << get_json(*node_a, "/api/v1/status")["tree"].dump()
      << "\nhead log: " << head.daemon->log();
  ASSERT_EQ(at_head.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(at_head[i], expected[i]) << "rank " << i;
    EXPECT_EQ(at_top[i], expected[i]) << "rank " << i;
    // Top files travel in the reports: each rank's own shard, as its node has it.
    const json files = at_top[i]["top_files"]["5s"]["files"];
    ASSERT_EQ(files.size(), 1u) << at_top[i]["top_files"].dump();
    EXPECT_EQ(files[0]["path"], "/data/shard-" + std::to_string(i) + ".bin");
    // 12 reads; the last one ends 85 ms before the last batch was sent, so it
    // is inside the window only when the window's end (the watermark rounded
    // down to the 100 ms grid) is past it: in about 15 % of runs it is not yet.
    const int ops = files[0]["ops"].get<int>();
    EXPECT_TRUE(ops == 11 || ops == 12) << files.dump();
  }
  // Sums over the ranks are exact; the nodes are heard and nothing refused.
  json job = get_json(*head.daemon, std::string("/api/v1/jobs/") + kJob);
  const json single_job = get_json(single, std::string("/api/v1/jobs/") + kJob);
  EXPECT_EQ(job["counters"], single_job["counters"]);

  // Waiting for peers across the nodes: rank 0 (node A) waited for rank 3
  // (node B) 30 ms a step, as the single collector says.
  const json rank0 = expected[0]["windows"]["5s"];
  EXPECT_GT(rank0["peer_wait_seconds"].get<double>(), 0.1) << rank0.dump();
  EXPECT_EQ(expected[3]["windows"]["5s"]["peer_wait_seconds"], 0.0);
  ASSERT_TRUE(single_job["summary"]["5s"]["held_back"].is_object()) << single_job.dump();
  EXPECT_EQ(single_job["summary"]["5s"]["held_back"]["ranks"][0]["rank"], 3);
  for (const DaemonProcess* d : {head.daemon.get(), top.daemon.get()}) {
    const json at = get_json(*d, std::string("/api/v1/jobs/") + kJob);
    for (const auto& [window, w] : single_job["summary"].items()) {
      EXPECT_EQ(at["summary"][window]["held_back"], w["held_back"]) << window;
      EXPECT_EQ(at["summary"][window]["mean"]["peer_wait_seconds"], w["mean"]["peer_wait_seconds"])
          << window;
      EXPECT_EQ(at["summary"][window]["max"]["peer_wait_seconds"], w["max"]["peer_wait_seconds"])
          << window;
    }
    // Each remote rank's timeline, fetched from its node, has the head's
    // waits: those of the single collector.
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(peer_waits_of(*d, r), peer_waits_of(single, r)) << "rank " << r;
    }
  }
  const json waits = peer_waits_of(single, 0);
  ASSERT_EQ(waits.size(), 12u) << waits.dump();
  EXPECT_EQ(waits[0]["waiting_for"], 3);
  EXPECT_EQ(waits[0]["end_ns"].get<std::int64_t>() - waits[0]["start_ns"].get<std::int64_t>(),
            30 * kMs);
  json alerts;
  EXPECT_TRUE(wait_until(
      [&] {
        alerts = get_json(*head.daemon, "/api/v1/alerts");
        for (const json& a : alerts["alerts"]) {
          if (a["name"] == "JobHeldBack" && a["job"] == kJob && a["state"] == "firing") return true;
        }
        return false;
      },
      5s, 50ms))
      << alerts.dump();
  json status = get_json(*head.daemon, "/api/v1/status");
  EXPECT_EQ(status["tree"]["nodes"], 2);
  EXPECT_EQ(status["tree"]["remote_ranks"], 4);
  EXPECT_EQ(status["tree"]["reports_rejected"], 0);
  EXPECT_EQ(get_json(*node_a, "/api/v1/status")["tree"]["upstream_curve"], true);

  // A remote rank's timeline is its node's.
  const std::string timeline = std::string("/api/v1/jobs/") + kJob + "/ranks/3/timeline";
  const HttpResponse from_head = top.daemon->get(timeline);
  ASSERT_EQ(from_head.status, 200) << from_head.body;
  json proxied = json::parse(from_head.body, nullptr, false);
  json own = get_json(*node_b, timeline);
  ASSERT_TRUE(proxied.is_object() && own.is_object()) << from_head.body;
  EXPECT_FALSE(proxied["regions"].empty());
  EXPECT_EQ(proxied["regions"], own["regions"]);

  // The job's series: the head has no rank of its own and asks nodes A and
  // B; the top asks the head. Both answer the single collector's series.
  for (const std::string& q : kSeriesQueries) {
    json want;
    json mid;
    json at;
    EXPECT_TRUE(wait_until(
        [&] {
          want = series_of(single, q);
          mid = series_of(*head.daemon, q);
          at = series_of(*top.daemon, q);
          if (!want.is_object() || !mid.is_object() || !at.is_object()) return false;
          const std::size_t points = want["t"].size();
          const json times = common_times({&want, &mid, &at});
          want = at_times(want, times);
          mid = at_times(mid, times);
          at = at_times(at, times);
          return want["t"].size() + 3 >= points && mid == want && at == want;
        },
        10s, 100ms))
        << q << "\nsingle: " << want.dump() << "\nhead: " << mid.dump() << "\ntop: " << at.dump();
    ASSERT_TRUE(want.is_object()) << q;
    ASSERT_EQ(want["ranks"].size(), 4u) << q;
    EXPECT_GE(full_points(want), 10u) << q << ": " << want.dump();
    for (const json* got : {&mid, &at}) {
      EXPECT_EQ((*got)["t"], want["t"]) << q;
      for (std::size_t r = 0; r < 4; ++r)
        EXPECT_EQ((*got)["ranks"][r], want["ranks"][r]) << q << " rank " << r;
      EXPECT_EQ((*got)["mean"], want["mean"]) << q;
      EXPECT_EQ((*got)["max"], want["max"]) << q;
      EXPECT_EQ((*got)["failed_nodes"], json::array()) << q;
    }
  }
  json tree = get_json(*head.daemon, "/api/v1/status")["tree"];
  EXPECT_EQ(tree["series_fetch_failures"], 0) << tree.dump();

  // Node B goes down: the head answers with node A's ranks, names node B
  // and counts it; the top passes node B's failure on.
  node_b->stop(9);
  const std::string q = kSeriesQueries[0];
  const json want = series_of(single, q);
  for (const DaemonProcess* d : {head.daemon.get(), top.daemon.get()}) {
    const json got = series_of(*d, q);
    ASSERT_TRUE(got.is_object())
        << d->get(std::string("/api/v1/jobs/") + kJob + "/series?" + q).body;
    ASSERT_EQ(got["ranks"].size(), 2u) << got.dump();
    EXPECT_EQ(got["ranks"][0], want["ranks"][0]);
    EXPECT_EQ(got["ranks"][1], want["ranks"][1]);
    ASSERT_EQ(got["failed_nodes"].size(), 1u) << got.dump();
    EXPECT_EQ(got["failed_nodes"][0]["node"], "node-b");
    EXPECT_NE(got["failed_nodes"][0]["error"].get<std::string>().find(
                  "cannot fetch the series from node 'node-b' at http://"),
              std::string::npos)
        << got.dump();
  }
  EXPECT_TRUE(wait_until(
      [&] {
        tree = get_json(*head.daemon, "/api/v1/status")["tree"];
        return tree["series_fetch_failures"] == 2;
      },
      5s, 50ms))
      << tree.dump();
  EXPECT_NE(tree["last_series_failure"].get<std::string>().find("node 'node-b'"),
            std::string::npos);
  EXPECT_NE(head.daemon->get("/metrics").body.find("stallwatch_tree_series_fetch_failures_total 2"),
            std::string::npos);
  // Logged once, however often it was asked.
  const std::string log = head.daemon->log();
  const std::string logged = "cannot fetch the series from node 'node-b'";
  ASSERT_NE(log.find(logged), std::string::npos) << log;
  EXPECT_EQ(log.find(logged, log.find(logged) + 1), std::string::npos) << log;
  // The top reached the head: nothing failed there.
  EXPECT_EQ(get_json(*top.daemon, "/api/v1/status")["tree"]["series_fetch_failures"], 0);
}

TEST(TreeTest, LostNodeTurnsSilentAndResumesAndALostHeadCostsNodesNothing) {
  TempDir dir;
  auto head = std::make_unique<Head>(dir.path() + "/head");
  ASSERT_TRUE(head->daemon && head->daemon->running() && !head->endpoint.empty());
  auto node_a = start_node(*head, "127.0.0.3", "node-a", dir.path() + "/a");
  auto node_b = start_node(*head, "127.0.0.4", "node-b", dir.path() + "/b");

  // Agents that keep sending, to whichever node daemon is current.
  std::atomic<bool> running{true};
  std::atomic<std::uint64_t> agent_failures{0};
  std::string endpoint_a = node_a->tcp_endpoint();
  std::atomic<std::shared_ptr<std::string>> endpoint_b{
      std::make_shared<std::string>(node_b->tcp_endpoint())};
  std::thread agents([&] {
    std::uint64_t seq = 0;
    auto pusher_a = std::make_unique<FramePusher>(endpoint_a);
    std::shared_ptr<std::string> b_at = endpoint_b.load();
    auto pusher_b = std::make_unique<FramePusher>(*b_at);
    while (running) {
      if (endpoint_b.load() != b_at) {
        b_at = endpoint_b.load();
        pusher_b = std::make_unique<FramePusher>(*b_at);
      }
      const auto frames = crafted_batches(1, seq++);
      for (int rank = 0; rank < 4; ++rank) {
        if (!(rank < 2 ? *pusher_a : *pusher_b).send(frames[static_cast<std::size_t>(rank)][0])) {
          if (rank < 2) ++agent_failures;
        }
      }
      std::this_thread::sleep_for(100ms);
    }
  });
  const auto all_active = [&] {
    for (int r = 0; r < 4; ++r) {
      if (rank_state(*head->daemon, r) != "active") return false;
    }
    return true;
  };
  EXPECT_TRUE(wait_until(all_active, 10s, 50ms));

  // Node B dies: its ranks turn silent within one silence period (2 s) and
  // a tick or two; node A's stay active.
  node_b->stop(9);
  const auto killed = std::chrono::steady_clock::now();
  EXPECT_TRUE(wait_until(
      [&] {
        return rank_state(*head->daemon, 2) == "silent" && rank_state(*head->daemon, 3) == "silent";
      },
      5s, 20ms));
  EXPECT_LT(std::chrono::steady_clock::now() - killed, 3000ms);
  EXPECT_EQ(rank_state(*head->daemon, 0), "active");

  // Back: they resume.
  node_b = start_node(*head, "127.0.0.4", "node-b", dir.path() + "/b");
  endpoint_b.store(std::make_shared<std::string>(node_b->tcp_endpoint()));
  EXPECT_TRUE(wait_until(all_active, 10s, 50ms));

  // The head dies: node A keeps ticking as fast, its agents keep sending, and
  // what it could not send is counted.
  json before = get_json(*node_a, "/api/v1/status");
  head->daemon->stop(9);
  const std::uint64_t events_before = before["ingest"]["events_received"];
  json after;
  EXPECT_TRUE(wait_until(
      [&] {
        after = get_json(*node_a, "/api/v1/status");
        return after["tree"]["reports_unsent"].get<std::uint64_t>() >= 20;
      },
      10s, 100ms))
      << after.dump();
  running = false;
  agents.join();
  EXPECT_EQ(agent_failures, 0u);
  EXPECT_GT(after["ingest"]["events_received"].get<std::uint64_t>(), events_before);
  EXPECT_LT(after["tick_seconds_p99"].get<double>(), 0.05);
  EXPECT_EQ(rank_state(*node_a, 0), "active");
}

// Nodes that serve their API over TLS with a bearer token: the head fetches
// a timeline over https with [tree] node_ca_file and node_token, and a node
// whose certificate that CA did not sign gives a 502 that says so, counted.
TEST(TreeTest, HeadFetchesTimelinesFromTlsNodesAndRefusesAnUntrustedNode) {
  const TestPki& pki = test_pki();
  ASSERT_FALSE(pki.ca.empty()) << "openssl could not make the test certificates";
  constexpr const char* kNodeToken = "node-token";
  TempDir dir;
  Head head(dir.path() + "/head", {},
            "[tree]\nnode_ca_file = \"" + pki.ca + "\"\nnode_token = \"" + kNodeToken + "\"\n");
  ASSERT_TRUE(head.daemon && head.daemon->running() && !head.endpoint.empty())
      << head.daemon->log();
  const std::string node_toml = "[http]\ntoken = \"" + std::string(kNodeToken) + "\"\n";
  auto trusted =
      start_node(head, "127.0.0.3", "node-a", dir.path() + "/a",
                 {"--http-tls-cert", pki.server_cert, "--http-tls-key", pki.server_key}, node_toml);
  auto untrusted =
      start_node(head, "127.0.0.4", "node-b", dir.path() + "/b",
                 {"--http-tls-cert", pki.other_server_cert, "--http-tls-key", pki.other_server_key},
                 node_toml);
  FramePusher to_a(trusted->tcp_endpoint());
  FramePusher to_b(untrusted->tcp_endpoint());
  const auto batches = crafted_batches(8, 0);
  for (std::size_t i = 0; i < batches[0].size(); ++i) {
    for (int rank = 0; rank < 4; ++rank)
      ASSERT_TRUE((rank < 2 ? to_a : to_b).send(batches[static_cast<std::size_t>(rank)][i]));
  }
  ASSERT_TRUE(wait_until(
      [&] {
        const json ranks = ranks_of(*head.daemon);
        return ranks.is_array() && ranks.size() == 4;
      },
      10s, 50ms))
      << get_json(*head.daemon, "/api/v1/status")["tree"].dump();

  const std::string timeline = std::string("/api/v1/jobs/") + kJob + "/ranks/";
  const HttpResponse proxied = head.daemon->get(timeline + "1/timeline");
  ASSERT_EQ(proxied.status, 200) << proxied.body << "\n" << head.daemon->log();
  collector::HttpRequest direct;
  direct.url =
      "https://127.0.0.1:" + std::to_string(trusted->http_port()) + timeline + "1/timeline";
  direct.tls.ca_file = pki.ca;
  direct.headers.emplace_back("Authorization", std::string("Bearer ") + kNodeToken);
  const collector::HttpResponse own = collector::http_request(direct);
  ASSERT_EQ(own.status, 200) << own.error;
  const json a = json::parse(proxied.body, nullptr, false);
  const json b = json::parse(own.body, nullptr, false);
  ASSERT_TRUE(a.is_object() && b.is_object()) << proxied.body;
  EXPECT_FALSE(a["regions"].empty());
  EXPECT_EQ(a["regions"], b["regions"]);

  const HttpResponse refused = head.daemon->get(timeline + "3/timeline");
  EXPECT_EQ(refused.status, 502);
  EXPECT_NE(refused.body.find("node 'node-b'"), std::string::npos) << refused.body;
  EXPECT_NE(refused.body.find("not trusted"), std::string::npos) << refused.body;
  // The status is published every tick.
  json tree;
  EXPECT_TRUE(wait_until(
      [&] {
        tree = get_json(*head.daemon, "/api/v1/status")["tree"];
        return tree["timeline_fetch_failures"] == 1;
      },
      5s, 50ms))
      << tree.dump();
  EXPECT_EQ(tree["timelines_fetched"], 1);
  EXPECT_EQ(tree["timeline_fetch_failures"], 1);
  EXPECT_NE(tree["last_timeline_failure"].get<std::string>().find("not trusted"),
            std::string::npos);
  EXPECT_NE(
      head.daemon->get("/metrics").body.find("stallwatch_tree_timeline_fetch_failures_total 1"),
      std::string::npos);
  EXPECT_NE(head.daemon->log().find("cannot fetch the timeline from node 'node-b'"),
            std::string::npos);
}

}  // namespace
}  // namespace stallwatch::test
