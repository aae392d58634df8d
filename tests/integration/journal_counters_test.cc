// SPDX-License-Identifier: MIT
// The per-rank Prometheus counters of a daemon with a journal, across
// restarts: killed (kill -9) under load, the restarted daemon's counters are
// at least where they were; once the run is over, a clean stop and a kill -9
// each give back exactly the same counters, and a lateness after a rank's
// end its counters hold its whole run: steps_total is every step mark the
// agents sent.

#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

constexpr int kRanks = 2;
constexpr const char* kJob = "resume";
constexpr const char* kCounters[] = {
    "stallwatch_wall_seconds_total",
    "stallwatch_data_stall_seconds_total",
    "stallwatch_device_busy_seconds_total",
    "stallwatch_fetch_seconds_total",
    "stallwatch_compute_seconds_total",
    "stallwatch_app_io_seconds_total",
    "stallwatch_steps_total",
    "stallwatch_samples_total",
    "stallwatch_lost_batches_total",
};

// Counter name -> value, per rank.
using RankCounters = std::map<std::string, double>;

// `required`: a missing counter fails the test (else it reads -1).
std::map<int, RankCounters> scrape_counters(const DaemonProcess& daemon, bool required = true) {
  const std::vector<PromSample> samples = scrape_metrics(daemon);
  std::map<int, RankCounters> out;
  for (int rank = 0; rank < kRanks; ++rank) {
    const std::map<std::string, std::string> labels{{"job_id", kJob},
                                                    {"rank", std::to_string(rank)}};
    for (const char* name : kCounters) {
      const auto value = find_sample(samples, name, labels);
      if (required) {
        EXPECT_TRUE(value.has_value()) << name << " rank " << rank;
      }
      out[rank][name] = value.value_or(-1);
    }
  }
  return out;
}

// The counters of a restarted daemon: its rank series are there from its
// first tick on (a scrape before that has none). With `settled`, those of
// finished ranks, which are final to their end a lateness after the replay:
// the first scrape that equals `settled`, else the last one.
std::map<int, RankCounters> counters_after_restart(
    const DaemonProcess& daemon, const std::map<int, RankCounters>* settled = nullptr) {
  std::map<int, RankCounters> out;
  const bool there = wait_until(
      [&] {
        out = scrape_counters(daemon, false);
        for (int rank = 0; rank < kRanks; ++rank) {
          if (out[rank]["stallwatch_wall_seconds_total"] < 0) return false;
        }
        return settled == nullptr || out == *settled;
      },
      5s, 20ms);
  EXPECT_TRUE(there || settled != nullptr) << "no rank counters after the restart";
  return out;
}

void expect_same(const std::map<int, RankCounters>& before,
                 const std::map<int, RankCounters>& after, const char* what) {
  for (int rank = 0; rank < kRanks; ++rank) {
    for (const char* name : kCounters) {
      EXPECT_DOUBLE_EQ(after.at(rank).at(name), before.at(rank).at(name))
          << what << ": " << name << " rank " << rank;
    }
  }
}

json finished_row(const DaemonProcess& daemon, int rank) {
  json row;
  const bool reached = wait_until(
      [&] {
        row = rank_row(daemon, kJob, rank);
        return row.is_object() && row.value("state", "") == "finished";
      },
      15s, 50ms);
  return reached ? row : json();
}

TEST(JournalCountersTest, CountersResumeFromTheJournalAfterAKillAndAStop) {
  TempDir journal;
  DaemonOptions options;
  options.config_toml = kJournalWindowsToml;
  options.extra_args = {"--journal", journal.path() + "/journal"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << daemon.log();

  std::vector<std::unique_ptr<ScriptedAgent>> agents;
  for (int rank = 0; rank < kRanks; ++rank) {
    agents.push_back(std::make_unique<ScriptedAgent>(
        AgentRun{"starved", 5, kJob, rank, daemon.tcp_endpoint()}, daemon.dir()));
    ASSERT_TRUE(agents.back()->start());
  }
  // Under load: both ranks have finalized steps.
  std::map<int, RankCounters> before;
  ASSERT_TRUE(wait_until(
      [&] {
        for (int rank = 0; rank < kRanks; ++rank) {
          const json row = rank_row(daemon, kJob, rank);
          if (!row.is_object() || row.value("events_received", 0) < 200) return false;
        }
        before = scrape_counters(daemon, false);
        for (int rank = 0; rank < kRanks; ++rank) {
          if (before[rank]["stallwatch_steps_total"] < 5) return false;
        }
        return true;
      },
      20s, 100ms))
      << daemon.log();

  ASSERT_EQ(daemon.stop(SIGKILL), 128 + SIGKILL);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  const std::map<int, RankCounters> restored = counters_after_restart(daemon);
  for (int rank = 0; rank < kRanks; ++rank) {
    for (const char* name : kCounters) {
      EXPECT_GE(restored.at(rank).at(name), before.at(rank).at(name))
          << "kill -9 under load: " << name << " rank " << rank << " went back";
    }
  }
  std::printf(
      "rank 0 before kill -9: steps_total %.0f, wall %.3f s; at the first scrape after: "
      "%.0f, %.3f s\n",
      before[0]["stallwatch_steps_total"], before[0]["stallwatch_wall_seconds_total"],
      restored.at(0).at("stallwatch_steps_total"),
      restored.at(0).at("stallwatch_wall_seconds_total"));

  for (auto& agent : agents) {
    ASSERT_EQ(agent->process().wait(30s), 0) << agent->output();
  }
  std::map<int, json> rows;
  for (int rank = 0; rank < kRanks; ++rank) {
    rows[rank] = finished_row(daemon, rank);
    ASSERT_TRUE(rows[rank].is_object()) << daemon.log();
  }
  // A lateness (300 ms) after its end, a finished rank is final to its end:
  // its counters hold its whole run, the API's totals window.
  std::map<int, RankCounters> final_counters;
  const auto whole_run = [&](int rank) {
    const RankCounters& c = final_counters.at(rank);
    const json& total = rows[rank]["windows"]["total"];
    return c.at("stallwatch_steps_total") == total.value("steps", -1.0) &&
           std::abs(c.at("stallwatch_wall_seconds_total") - total.value("wall_seconds", -1.0)) <
               1e-6;
  };
  const bool settled = wait_until(
      [&] {
        final_counters = scrape_counters(daemon, false);
        for (int rank = 0; rank < kRanks; ++rank) {
          if (!whole_run(rank)) return false;
        }
        return true;
      },
      10s, 100ms);
  EXPECT_TRUE(settled) << "a finished rank's counters never reached its whole run";

  for (int rank = 0; rank < kRanks; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const RankCounters& c = final_counters.at(rank);
    const json& total = rows[rank]["windows"]["total"];
    const double wall = c.at("stallwatch_wall_seconds_total");
    EXPECT_NEAR(wall, total.value("wall_seconds", -1.0), 1e-6);
    const double steps = c.at("stallwatch_steps_total");
    EXPECT_EQ(steps, total.value("steps", -1.0));
    EXPECT_EQ(c.at("stallwatch_lost_batches_total"), rows[rank].value("lost_batches", -1.0));
    // Every step mark the agent sent is a step (less what the kill lost).
    const auto report = load_agent_report(agents[static_cast<std::size_t>(rank)]->report_path());
    ASSERT_TRUE(report.has_value());
    const auto marks = static_cast<double>(report->step_marks.size());
    if (rows[rank].value("lost_batches", 1) == 0 && rows[rank].value("agent_dropped", 1) == 0) {
      EXPECT_EQ(steps, marks);
    } else {
      EXPECT_LE(steps, marks);
    }
    std::printf(
        "rank %d: steps_total %.0f (marks sent %.0f, lost batches %.0f), wall %.3f s (totals "
        "window %.3f s), stall %.3f s\n",
        rank, steps, marks, c.at("stallwatch_lost_batches_total"), wall,
        total.value("wall_seconds", -1.0), c.at("stallwatch_data_stall_seconds_total"));
  }

  ASSERT_EQ(daemon.stop(SIGTERM), 0) << daemon.log();
  ASSERT_TRUE(daemon.start()) << daemon.log();
  expect_same(final_counters, counters_after_restart(daemon, &final_counters),
              "after a clean stop");

  ASSERT_EQ(daemon.stop(SIGKILL), 128 + SIGKILL);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  expect_same(final_counters, counters_after_restart(daemon, &final_counters), "after kill -9");
}

}  // namespace
}  // namespace stallwatch::test
