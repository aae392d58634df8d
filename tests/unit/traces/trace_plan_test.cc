// SPDX-License-Identifier: MIT
#include "traces/trace_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace_files.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

std::string start(std::int64_t pid, std::int64_t ppid) {
  return R"({"name":"start","cat":"dftracer","pid":)" + std::to_string(pid) + R"(,"tid":)" +
         std::to_string(pid) + R"(,"ts":100,"dur":0,"ph":"X","args":{"ppid":)" +
         std::to_string(ppid) + "}}\n";
}

std::string read(std::int64_t pid, std::int64_t ts, std::int64_t dur) {
  return R"({"name":"read","cat":"POSIX","pid":)" + std::to_string(pid) + R"(,"tid":)" +
         std::to_string(pid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
         std::to_string(dur) + R"(,"ph":"X"})" + "\n";
}

TEST(TracePlan, WorkerFilesJoinTheirParentsRank) {
  TempDir dir;
  const std::string parent =
      dir.write("app-100.pfw", start(100, 1) + read(100, 200, 50) + read(100, 400, 50));
  const std::string worker = dir.write("app-101.pfw", start(101, 100) + read(101, 300, 10));
  const std::string other = dir.write("app-200.pfw", start(200, 1) + read(200, 200, 5));
  TracePlan plan;
  ASSERT_EQ(plan_traces({worker, other, parent}, plan), "");
  ASSERT_EQ(plan.ranks.size(), 2u);
  const RankGroup& first = plan.ranks[0];
  EXPECT_EQ(first.rank, 0);
  EXPECT_EQ(first.main_pid, 100);
  EXPECT_EQ(first.sources.size(), 2u);
  EXPECT_EQ(plan.ranks[1].main_pid, 200);
  EXPECT_EQ(plan.first_ts_ns, 100'000);

  // The rank's files are merged by end time.
  RankStream stream(plan, first);
  ASSERT_EQ(stream.open(), "");
  std::vector<std::int64_t> ends, pids;
  const TraceEvent* event = nullptr;
  const TraceFileInfo* file = nullptr;
  while (stream.next(event, file)) {
    ends.push_back(event->end_ns());
    pids.push_back(event->pid);
  }
  EXPECT_EQ(ends, (std::vector<std::int64_t>{100'000, 100'000, 250'000, 310'000, 450'000}));
  EXPECT_EQ(pids[3], 101);
}

// A forked worker without a `start` record writes under its parent's pid
// (its own pid as tid): it joins the rank of the file that started that pid,
// whatever the order of the files.
TEST(TracePlan, AForkedWorkerWithoutAStartRecordJoinsTheFileOfItsPid) {
  TempDir dir;
  const std::string worker = dir.write("a-worker.pfw", read(100, 300, 10) + read(100, 320, 10));
  const std::string parent = dir.write("b-main.pfw", start(100, 1) + read(100, 200, 50));
  const std::string other = dir.write("c-other.pfw", start(200, 1) + read(200, 200, 5));
  TracePlan plan;
  ASSERT_EQ(plan_traces({worker, parent, other}, plan), "");
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.ranks[0].main_pid, 100);
  EXPECT_EQ(plan.ranks[0].sources, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(plan.ranks[1].main_pid, 200);
}

TEST(TracePlan, NamesAndDistributedInfoGiveRanks) {
  TempDir dir;
  const std::string a = dir.write("trace-3-of-4.pfw", start(7, 1) + read(7, 200, 1));
  const std::string b = dir.write(
      "k.json",
      R"({"distributedInfo": {"rank": 5}, "traceEvents": [{"ph":"X","cat":"cpu_op","name":"x","pid":9,"tid":9,"ts":1,"dur":2}]})");
  TracePlan plan;
  ASSERT_EQ(plan_traces({b, a}, plan), "");
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.ranks[0].format, TraceFormat::kDftracer);
  EXPECT_EQ(plan.ranks[0].rank, 3);
  EXPECT_EQ(plan.ranks[1].format, TraceFormat::kKineto);
  EXPECT_EQ(plan.ranks[1].rank, 5);
  EXPECT_EQ(plan.ranks[1].main_pid, 9);
}

TEST(TracePlan, TwoKinetoFilesClaimingOneRankStayApart) {
  TempDir dir;
  const std::string doc =
      R"({"distributedInfo": {"rank": 2}, "traceEvents": [{"ph":"X","cat":"cpu_op","name":"x","pid":9,"tid":9,"ts":1,"dur":2}]})";
  const std::string a = dir.write("a.json", doc);
  const std::string b = dir.write("b.json", doc);
  TracePlan plan;
  ASSERT_EQ(plan_traces({a, b}, plan), "");
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.ranks[0].rank, 2);
  EXPECT_EQ(plan.ranks[1].rank, 3);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("shown as rank 3"), std::string::npos) << plan.notes[0];
}

TEST(TracePlan, AnUnreadableFileNamesItself) {
  TracePlan plan;
  const std::string error = plan_traces({"/nonexistent/a.pfw"}, plan);
  EXPECT_NE(error.find("/nonexistent/a.pfw"), std::string::npos) << error;
}

}  // namespace
}  // namespace stallwatch::collector
