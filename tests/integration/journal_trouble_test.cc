// SPDX-License-Identifier: MIT
// The journal's disk refuses writes (a file size limit of 0, as a full disk
// would) while agents send: the daemon keeps serving live metrics, says so
// once in its log and in /api/v1/status, counts every batch it could not
// write, and writes again once the limit is lifted.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>

#include "ingest/journal_reader.h"
#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

std::uint64_t events_of(const DaemonProcess& daemon) {
  const json row = rank_row(daemon, "disk", 0);
  return row.is_object() ? row.value("events_received", std::uint64_t{0}) : 0;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
    ++n;
  return n;
}

bool set_file_size_limit(int pid, rlim_t limit) {
  const rlimit value{limit, RLIM_INFINITY};
  return ::prlimit(pid, RLIMIT_FSIZE, &value, nullptr) == 0;
}

TEST(JournalTroubleTest, UnwritableJournalIsCountedAndResumes) {
  // Past the limit a write fails with EFBIG instead of killing the daemon.
  ::signal(SIGXFSZ, SIG_IGN);
  TempDir journal;
  DaemonOptions options = short_window_options();
  options.extra_args = {"--journal", journal.path() + "/journal"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent agent({"starved", 6, "disk", 0, daemon.tcp_endpoint()}, daemon.dir());
  ASSERT_TRUE(agent.start());
  ASSERT_TRUE(wait_until([&] { return events_of(daemon) > 50; }, 15s));

  ASSERT_TRUE(set_file_size_limit(daemon.pid(), 0));
  json status;
  ASSERT_TRUE(wait_until(
      [&] {
        status = get_json(daemon, "/api/v1/status");
        return status.is_object() && status["journal"].is_object() &&
               !status["journal"].value("writing", true) &&
               status["journal"].value("records_unwritten", 0) > 5;
      },
      10s))
      << status.dump() << daemon.log();
  EXPECT_NE(status["journal"].value("error", std::string()).find("File too large"),
            std::string::npos)
      << status.dump();
  // Live metrics go on while the journal cannot write.
  const auto before = events_of(daemon);
  ASSERT_TRUE(wait_until([&] { return events_of(daemon) > before + 50; }, 10s));

  ASSERT_TRUE(set_file_size_limit(daemon.pid(), RLIM_INFINITY));
  ASSERT_TRUE(wait_until(
      [&] {
        status = get_json(daemon, "/api/v1/status");
        return status.is_object() && status["journal"].value("writing", false);
      },
      10s))
      << status.dump();
  ASSERT_EQ(agent.process().wait(30s), 0) << agent.output();
  json row;
  ASSERT_TRUE(wait_until(
      [&] {
        row = rank_row(daemon, "disk", 0);
        return row.is_object() && row.value("state", "") == "finished";
      },
      15s));
  std::this_thread::sleep_for(500ms);  // the last receive round is in the status
  status = get_json(daemon, "/api/v1/status");
  ASSERT_EQ(daemon.stop(), 0);

  // Every batch received is either in the journal or counted as unwritten.
  const json& j = status["journal"];
  const auto written = j.value("records_written", std::uint64_t{0});
  const auto unwritten = j.value("records_unwritten", std::uint64_t{0});
  std::printf("journal: %llu batches written, %llu unwritten during the outage\n",
              static_cast<unsigned long long>(written), static_cast<unsigned long long>(unwritten));
  EXPECT_GT(unwritten, 0u);
  EXPECT_EQ(written + unwritten, status["ingest"].value("frames_received", std::uint64_t{0}));
  std::uint64_t on_disk = 0;
  for (const auto& e : std::filesystem::directory_iterator(journal.path() + "/journal")) {
    const auto read = collector::read_journal_segment(e.path().string(), [](auto, auto) {});
    EXPECT_EQ(read.error, "") << e.path();
    on_disk += read.records;
  }
  EXPECT_EQ(on_disk, written);
  // Said once per outage, not once per batch. The file size limit also
  // stops the daemon's own log file, so the line saying the journal cannot
  // write is lost with it here; the line saying it writes again names why.
  const std::string log = daemon.log();
  EXPECT_LE(count_of(log, "journal: cannot write"), 1u) << log;
  EXPECT_EQ(count_of(log, "journal: writing again"), 1u) << log;
  EXPECT_EQ(count_of(log, "batches were not written"), 1u) << log;
  EXPECT_NE(log.find(std::to_string(unwritten) + " batches were not written"), std::string::npos)
      << log;
  EXPECT_NE(log.find("File too large"), std::string::npos) << log;
}

}  // namespace
}  // namespace stallwatch::test
