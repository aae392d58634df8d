// SPDX-License-Identifier: MIT
// `stallwatch replay DIR/*.swj`: a live run's journal, replayed into a fresh
// daemon, shows the same ranks, counters and windows as the live daemon did;
// a corrupt record is reported with its file and offset, and the rest of the
// journal still arrives.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

constexpr int kRanks = 2;

DaemonOptions options(const std::vector<std::string>& extra = {}) {
  DaemonOptions o;
  o.config_toml = kJournalWindowsToml;
  o.extra_args = extra;
  return o;
}

// The rank's row once finished; null if it never finishes.
json finished_row(const DaemonProcess& daemon, const std::string& job, int rank) {
  json row;
  const bool finished = wait_until(
      [&] {
        row = rank_row(daemon, job, rank);
        return row.is_object() && row.value("state", "") == "finished";
      },
      20s, 50ms);
  return finished ? row : json();
}

std::vector<std::string> segments(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".swj") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `stallwatch replay FILES --to ENDPOINT --speed max`; its exit status.
int replay(const std::vector<std::string>& files, const std::string& endpoint,
           const std::string& dir, std::string& output) {
  std::vector<std::string> argv{STALLWATCH_CLI, "replay"};
  argv.insert(argv.end(), files.begin(), files.end());
  for (const char* word : {"--to", endpoint.c_str(), "--speed", "max", "--timeout", "30s"})
    argv.emplace_back(word);
  ChildProcess child({argv, {}, dir + "/replay.out"});
  if (!child.start()) return -1;
  const auto status = child.wait(60s);
  output = child.output();
  return status.value_or(-1);
}

// Header offsets of a segment's records.
std::vector<std::uint64_t> record_offsets(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::uint64_t> out;
  for (std::size_t pos = 8; pos + 12 <= data.size();) {
    out.push_back(pos);
    std::uint32_t len = 0;
    for (int i = 0; i < 4; ++i)
      len |= std::uint32_t{static_cast<std::uint8_t>(data[pos + static_cast<std::size_t>(i)])}
             << (8 * i);
    pos += 12 + len;
  }
  return out;
}

class JournalReplayTest : public ::testing::Test {
 protected:
  // One live run of two ranks, journaled; its rows once finished.
  void SetUp() override {
    DaemonProcess live(options({"--journal", journal_.path() + "/journal"}));
    ASSERT_TRUE(live.start()) << live.log();
    std::vector<std::unique_ptr<ScriptedAgent>> agents;
    for (int rank = 0; rank < kRanks; ++rank) {
      agents.push_back(std::make_unique<ScriptedAgent>(
          AgentRun{"starved", 3, "live", rank, live.tcp_endpoint()}, live.dir()));
      ASSERT_TRUE(agents.back()->start());
    }
    for (auto& agent : agents)
      ASSERT_EQ(agent->process().wait(30s), 0) << agent->output();
    for (int rank = 0; rank < kRanks; ++rank) {
      live_rows_.push_back(finished_row(live, "live", rank));
      ASSERT_TRUE(live_rows_.back().is_object()) << live.log();
    }
    ASSERT_EQ(live.stop(), 0);
    files_ = segments(journal_.path() + "/journal");
    ASSERT_FALSE(files_.empty());
  }

  TempDir journal_;
  std::vector<json> live_rows_;
  std::vector<std::string> files_;
};

TEST_F(JournalReplayTest, ReplayedJournalShowsWhatTheLiveDaemonShowed) {
  DaemonProcess fresh(options());
  ASSERT_TRUE(fresh.start()) << fresh.log();
  std::string output;
  ASSERT_EQ(replay(files_, fresh.ipc_endpoint(), fresh.dir(), output), 0) << output;
  EXPECT_NE(output.find("0 corrupt or truncated journal records skipped"), std::string::npos)
      << output;
  for (int rank = 0; rank < kRanks; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const json row = finished_row(fresh, "live", rank);
    ASSERT_TRUE(row.is_object()) << output << get_json(fresh, "/api/v1/status")["ingest"].dump()
                                 << " live: " << live_rows_[0].value("batches_received", 0) << " + "
                                 << live_rows_[1].value("batches_received", 0) << " "
                                 << live_rows_[static_cast<std::size_t>(rank)].value("state", "")
                                 << rank_row(fresh, "live", rank).dump().substr(0, 300);
    const json& was = live_rows_[static_cast<std::size_t>(rank)];
    for (const char* counter : {"events_received", "batches_received", "agent_dropped",
                                "lost_batches", "late_events", "unpaired_events"}) {
      EXPECT_EQ(row.value(counter, std::uint64_t{99}), was.value(counter, std::uint64_t{0}))
          << counter;
    }
    EXPECT_GT(row.value("events_received", 0), 100);
    // The short window too: a replay shifts times by whole seconds, so each
    // falls in the grid cell it was in live (the last 2 s of a run cut
    // differently would read differently).
    for (const char* window : {"300s", "2s"}) {
      SCOPED_TRACE(window);
      const json& now = row["windows"][window];
      const json& then = was["windows"][window];
      for (const char* field :
           {"wall_seconds", "compute_seconds", "fetch_seconds", "app_io_seconds",
            "unoverlapped_app_io_seconds", "data_stall_seconds"}) {
        EXPECT_NEAR(now.value(field, -1.0), then.value(field, -2.0), 1e-9) << field;
      }
      EXPECT_EQ(now.value("steps", 0), then.value("steps", 1));
      EXPECT_EQ(now.value("verdict", ""), then.value("verdict", "?"));
    }
    EXPECT_GT(row["windows"]["300s"].value("steps", 0), 10);
  }
}

TEST_F(JournalReplayTest, CorruptRecordIsReportedAndTheRestIsReplayed) {
  // The middle record of the first segment gets a nonsense length.
  const std::string copy = journal_.path() + "/corrupt.swj";
  std::filesystem::copy_file(files_.front(), copy);
  const auto offsets = record_offsets(copy);
  ASSERT_GT(offsets.size(), 10u);
  const std::uint64_t bad = offsets[offsets.size() / 2];
  {
    std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(bad));
    f.write("\xff\xff\xff\x7f", 4);
  }
  DaemonProcess fresh(options());
  ASSERT_TRUE(fresh.start()) << fresh.log();
  std::string output;
  ASSERT_EQ(replay({copy}, fresh.ipc_endpoint(), fresh.dir(), output), 0) << output;
  std::printf("%s", output.c_str());
  EXPECT_NE(output.find(copy + " at offset " + std::to_string(bad) + ": corrupt record"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("1 corrupt or truncated journal records skipped"), std::string::npos)
      << output;
  // Both ranks arrive, finished: the records after the bad one were replayed.
  std::uint64_t live_events = 0;
  std::uint64_t replayed_events = 0;
  for (int rank = 0; rank < kRanks; ++rank) {
    const json row = finished_row(fresh, "live", rank);
    ASSERT_TRUE(row.is_object()) << output << rank_row(fresh, "live", rank).dump();
    replayed_events += row.value("events_received", std::uint64_t{0});
    live_events += live_rows_[static_cast<std::size_t>(rank)].value("events_received", 0ull);
  }
  EXPECT_LT(replayed_events, live_events);
  EXPECT_GT(replayed_events, live_events / 2);
}

}  // namespace
}  // namespace stallwatch::test
