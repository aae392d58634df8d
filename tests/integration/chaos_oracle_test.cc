// SPDX-License-Identifier: MIT
// stallwatchd killed (kill -9) under load and restarted at once with the same
// journal, twice, and frozen (SIGSTOP) for a second in between. At the end,
// for every rank, every window of the restarted daemon (2 s, 300 s and the
// totals) and its counters equal the brute-force oracle (tests/support/engine)
// run over every batch the feeders made minus exactly the batches the daemon
// shows as lost: the feeders' drops while no daemon listened (agent_dropped),
// the batches ZeroMQ refused and those lost on the wire at each kill
// (lost_batches, sequence gaps). Each kill cuts a region at both ends, so the
// oracle's crash rules (docs/api.md, "What a crash or restart loses") decide
// the windows: a region whose BEGIN was lost adds no time, one whose END was
// lost stays open to the process's last batch. One rank dies without a final
// batch, its last region left open.

#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "engine/metric_fields.h"
#include "integration_fixture.h"
#include "oracle.h"
#include "recording_feeder.h"

namespace stallwatch::test {
namespace {

using collector::EngineConfig;
using collector::kNsPerSecond;
using collector::WindowMetrics;

constexpr int kRanks = 4;
constexpr int kDyingRank = 3;
// Killed and restarted, frozen and continued (catching up), killed again
// while catching up.
enum class Fault { kKill, kFreeze };
constexpr Fault kFaults[] = {Fault::kKill, Fault::kFreeze, Fault::kKill};
constexpr std::uint64_t kEventsBetweenFaults = 150;  // per rank, about 0.7 s of steps
constexpr auto kFrozenFor = std::chrono::seconds(1);
constexpr const char* kJob = "chaos-oracle";

// The engine settings of kJournalWindowsToml.
EngineConfig journal_windows_config() {
  EngineConfig c;
  c.windows_ns = {2 * kNsPerSecond, 300 * kNsPerSecond};
  c.verdict_window_ns = 2 * kNsPerSecond;
  c.resolution_ns = kNsPerSecond / 10;
  c.lateness_ns = 3 * kNsPerSecond / 10;
  c.silent_after_ns = 5 * kNsPerSecond;
  c.history_ns = 310 * kNsPerSecond;
  return c;
}

// What the daemon must show for one rank.
struct ExpectedRank {
  std::vector<WindowMetrics> windows;  // configured, then the totals
  std::uint64_t events_received = 0;
  std::uint64_t agent_dropped = 0;
  std::uint64_t lost_batches = 0;
  std::uint64_t unpaired_events = 0;
  std::uint64_t late_events = 0;
  // Batches by fate, for the figures.
  std::size_t received = 0, refused = 0, lost_at_kill = 0;
  // Not received and after the last batch received: no gap shows them.
  std::size_t unseen_after_last = 0;
};

// The oracle over the batches that reached the daemon, in the order they
// reached it (one connection: the order of their sequence numbers).
ExpectedRank expected_rank(const RecordingFeeder& feeder, const EngineConfig& config) {
  collector::testing::Oracle oracle(config, feeder.names());
  ExpectedRank e;
  std::int64_t latest = 0;
  std::optional<std::uint64_t> first_seq;
  std::uint64_t last_seq = 0;
  for (const FedBatch& b : feeder.batches()) {
    e.refused += b.fate == BatchFate::kRefused;
    e.lost_at_kill += b.fate == BatchFate::kLost;
    if (b.fate != BatchFate::kReceived) continue;
    ++e.received;
    oracle.ingest(b.batch, b.batch.sent_at_ns);
    latest = std::max(latest, b.batch.sent_at_ns);
    e.events_received += b.batch.events.size();
    e.agent_dropped += b.batch.dropped_since_last;
    if (!first_seq) first_seq = b.batch.seq;
    last_seq = b.batch.seq;
  }
  // A gap is every sequence number between the first and the last received
  // that did not arrive.
  if (first_seq) e.lost_batches = last_seq - *first_seq + 1 - e.received;
  for (const FedBatch& b : feeder.batches())
    e.unseen_after_last += b.fate != BatchFate::kReceived && b.batch.seq > last_seq;
  oracle.settle(latest + config.lateness_ns);
  e.windows = oracle.windows();
  e.unpaired_events = oracle.unpaired_events();
  e.late_events = oracle.late_events();
  return e;
}

std::string window_key(std::int64_t window_ns) {
  return window_ns == 0 ? "total" : std::to_string(window_ns / kNsPerSecond) + "s";
}

bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// The first difference between a rank row of the API and the oracle, or "".
std::string rank_difference(const json& row, const ExpectedRank& e) {
  if (!row.is_object()) return "no row";
  std::ostringstream out;
  const std::pair<const char*, std::uint64_t> counters[] = {
      {"events_received", e.events_received}, {"agent_dropped", e.agent_dropped},
      {"lost_batches", e.lost_batches},       {"unpaired_events", e.unpaired_events},
      {"late_events", e.late_events},
  };
  for (const auto& [name, value] : counters) {
    if (row_counter(row, name) != value) {
      out << name << ": daemon " << row_counter(row, name) << ", oracle " << value;
      return out.str();
    }
  }
  for (const WindowMetrics& o : e.windows) {
    const std::string key = window_key(o.window_ns);
    const json& m = row["windows"][key];
    if (!m.is_object()) return "window " + key + " missing";
    const auto differs = [&](std::string_view field, double daemon, double oracle) {
      if (same(daemon, oracle)) return false;
      out.precision(12);
      out << "window " << key << " " << field << ": daemon " << daemon << ", oracle " << oracle;
      return true;
    };
    if (differs("start_ns", m.value("start_ns", 0.0), static_cast<double>(o.start_ns)) ||
        differs("end_ns", m.value("end_ns", 0.0), static_cast<double>(o.end_ns))) {
      return out.str();
    }
    for (const collector::MetricField& f : collector::metric_fields()) {
      const auto it = m.find(f.name());
      const double daemon = it != m.end() && it->is_number() ? it->get<double>() : std::nan("");
      if (differs(f.name(), daemon, f.get(o))) return out.str();
    }
    if (m.value("verdict", "") != collector::to_string(o.verdict)) {
      return "window " + key + " verdict: daemon " + m.value("verdict", "") + ", oracle " +
             std::string(collector::to_string(o.verdict));
    }
    const std::string cause =
        o.cause == collector::Cause::kNone ? "" : std::string(collector::to_string(o.cause));
    const std::string shown = m["cause"].is_string() ? m["cause"].get<std::string>() : "";
    if (shown != cause) return "window " + key + " cause: daemon " + shown + ", oracle " + cause;
  }
  return "";
}

TEST(ChaosTest, EveryRanksWindowsEqualTheOracleAfterKill9) {
  TempDir journal;
  DaemonOptions options;
  options.config_toml = kJournalWindowsToml;
  options.extra_args = {"--journal", journal.path() + "/journal"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << daemon.log();

  std::vector<std::unique_ptr<RecordingFeeder>> feeders;
  for (int rank = 0; rank < kRanks; ++rank) {
    FeederPlan plan;
    plan.job = kJob;
    plan.rank = rank;
    plan.endpoint = daemon.tcp_endpoint();
    plan.seed = 7 + static_cast<std::uint32_t>(rank);
    plan.run_for = 6s;
    if (rank == kDyingRank) plan.dies_after = 4s;
    feeders.push_back(std::make_unique<RecordingFeeder>(plan));
    feeders.back()->start();
  }

  // Each fault comes once every rank still running has shown
  // kEventsBetweenFaults more events than before the last one (the dying
  // rank may be gone by then).
  std::vector<std::uint64_t> since(kRanks, 0);
  for (std::size_t fault = 0; fault < std::size(kFaults); ++fault) {
    SCOPED_TRACE("fault " + std::to_string(fault + 1));
    ASSERT_TRUE(wait_until(
        [&] {
          for (int rank = 0; rank < kRanks; ++rank) {
            if (fault > 0 && rank == kDyingRank) continue;
            const std::uint64_t shown =
                row_counter(rank_row(daemon, kJob, rank), "events_received");
            if (shown < since[static_cast<std::size_t>(rank)] + kEventsBetweenFaults) return false;
          }
          return true;
        },
        15s, 20ms))
        << daemon.log();
    if (kFaults[fault] == Fault::kFreeze) {
      // The feeders go on sending; ZeroMQ and the kernel hold it all.
      for (int rank = 0; rank < kRanks; ++rank)
        since[static_cast<std::size_t>(rank)] =
            row_counter(rank_row(daemon, kJob, rank), "events_received");
      ASSERT_EQ(::kill(daemon.pid(), SIGSTOP), 0);
      std::this_thread::sleep_for(kFrozenFor);
      ASSERT_EQ(::kill(daemon.pid(), SIGCONT), 0);
      continue;
    }
    ASSERT_EQ(daemon.stop(SIGKILL), 128 + SIGKILL);
    for (auto& feeder : feeders)
      feeder->set_down(true);
    ASSERT_TRUE(daemon.start()) << daemon.log();
    // Nothing is sent while down: what the rows show now is what the journal restored.
    for (int rank = 0; rank < kRanks; ++rank) {
      const json row = rank_row(daemon, kJob, rank);
      ASSERT_TRUE(row.is_object()) << "rank " << rank << " not restored\n" << daemon.log();
      since[static_cast<std::size_t>(rank)] = row_counter(row, "events_received");
      const std::string misfit =
          feeders[static_cast<std::size_t>(rank)]->restored(row_counter(row, "events_received"));
      ASSERT_EQ(misfit, "") << "rank " << rank;
    }
    for (auto& feeder : feeders)
      feeder->set_down(false);
  }
  for (auto& feeder : feeders) {
    feeder->join();
    feeder->all_arrived();
  }

  const EngineConfig config = journal_windows_config();
  std::vector<ExpectedRank> expected;
  for (const auto& feeder : feeders)
    expected.push_back(expected_rank(*feeder, config));
  // The finished ranks settle a lateness after their final batch.
  std::vector<json> rows(kRanks);
  const bool equal = wait_until(
      [&] {
        bool all = true;
        for (int rank = 0; rank < kRanks; ++rank) {
          const auto r = static_cast<std::size_t>(rank);
          rows[r] = rank_row(daemon, kJob, rank);
          all = all && rank_difference(rows[r], expected[r]).empty();
        }
        return all;
      },
      10s, 100ms);
  for (int rank = 0; rank < kRanks; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const auto r = static_cast<std::size_t>(rank);
    const ExpectedRank& e = expected[r];
    const json& row = rows[r];
    EXPECT_EQ(rank_difference(row, e), "") << row.dump();
    const json& whole = row["windows"]["300s"];
    std::printf(
        "rank %d: batches received %zu, refused %zu, lost at a kill %zu (after the last one "
        "received %zu); events received %llu, "
        "agent dropped %llu, lost batches %llu, unpaired %llu; 300s compute %.6f s (oracle "
        "%.6f), fetch %.6f s (oracle %.6f), data stall %.6f s (oracle %.6f)\n",
        rank, e.received, e.refused, e.lost_at_kill, e.unseen_after_last,
        static_cast<unsigned long long>(e.events_received),
        static_cast<unsigned long long>(e.agent_dropped),
        static_cast<unsigned long long>(e.lost_batches),
        static_cast<unsigned long long>(e.unpaired_events), whole.value("compute_seconds", -1.0),
        e.windows[1].compute_seconds, whole.value("fetch_seconds", -1.0),
        e.windows[1].fetch_seconds, whole.value("data_stall_seconds", -1.0),
        e.windows[1].data_stall_seconds);
    // The run went through the crash rules: every down period dropped
    // events and cut a region at both ends.
    EXPECT_GT(e.agent_dropped, 0u);
    EXPECT_GT(e.unpaired_events, 0u);
    // A rank's final batch arrives, so every loss before it shows as a gap;
    // only a process that dies can take unseen losses with it.
    if (rank != kDyingRank) {
      EXPECT_EQ(e.unseen_after_last, 0u);
    }
    EXPECT_EQ(row.value("state", "") == "finished", rank != kDyingRank) << row.dump();
  }
  EXPECT_TRUE(equal);
}

}  // namespace
}  // namespace stallwatch::test
