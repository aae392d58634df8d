// SPDX-License-Identifier: MIT
#include "traces/batch_builder.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "stallwatch/event_flags.h"
#include "trace_files.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {
namespace {

struct Source {
  SourceInfo info;
  std::vector<std::uint64_t> seqs;
  std::uint64_t events = 0;
  std::uint64_t file_marks = 0;  // posix_file marks
  bool final = false;
};

std::map<std::int32_t, Source> build(const std::vector<std::string>& paths, std::uint64_t& read) {
  TracePlan plan;
  EXPECT_EQ(plan_traces(paths, plan), "");
  NameTable names;
  BatchBuilder::Options options;
  options.job = "j";
  options.max_events = 100;
  BatchBuilder builder(names, options);
  std::map<std::int32_t, Source> sources;
  const BatchBuilder::Emit emit = [&](const DecodedBatch& batch) {
    Source& s = sources[batch.source.pid];
    s.info = batch.source;
    s.seqs.push_back(batch.seq);
    s.events += batch.events.size();
    s.final = s.final || batch.final;
    EXPECT_LE(batch.events.size(), 101u);  // a call and the mark naming its file
    for (const Event& e : batch.events) {
      EXPECT_LE(e.ts_ns + e.dur_ns, batch.sent_at_ns);
      s.file_marks += e.kind == EventKind::kMark && names.str(e.cat) == "posix_file";
    }
  };
  read = 0;
  for (const RankGroup& group : plan.ranks) {
    RankStream stream(plan, group);
    EXPECT_EQ(stream.open(), "");
    const TraceEvent* event = nullptr;
    const TraceFileInfo* file = nullptr;
    while (stream.next(event, file)) {
      builder.add(group, *file, *event, emit);
      ++read;
    }
    builder.finish_rank(group, emit);
  }
  return sources;
}

TEST(BatchBuilder, ForkedDataLoaderProcessesBecomeWorkerSources) {
  std::uint64_t read = 0;
  const auto sources = build({testing::test_data("dftracer-dlio/trace-5-of-8.pfw.gz")}, read);
  ASSERT_EQ(sources.size(), 7u);  // the training process and six forked workers
  std::uint64_t events = 0, file_marks = 0;
  int workers = 0;
  const std::int32_t main_pid = 1028572;
  for (const auto& [pid, s] : sources) {
    events += s.events;
    file_marks += s.file_marks;
    EXPECT_EQ(s.info.job, "j");
    EXPECT_EQ(s.info.rank, 5);
    EXPECT_EQ(s.info.host, "corona171");
    EXPECT_TRUE(s.final);
    for (std::size_t i = 0; i < s.seqs.size(); ++i)
      EXPECT_EQ(s.seqs[i], i);
    if (s.info.role == ProcessRole::kWorker) {
      ++workers;
      EXPECT_EQ(s.info.ppid, main_pid);
    }
  }
  EXPECT_EQ(workers, 6);
  ASSERT_EQ(sources.count(main_pid), 1u);
  EXPECT_EQ(sources.at(main_pid).info.role, ProcessRole::kMain);
  EXPECT_GT(file_marks, 0u) << "the trace's calls name their files";
  EXPECT_EQ(events, read + file_marks);
}

// A call on a file is sent as the POSIX agent sends it: its process names the
// file once with a posix_file mark (value: the id), the call carries the id
// in its subject and its bytes (-1: none) as the complete value.
TEST(BatchBuilder, FileCallsCarryTheIdTheirProcessNamedWithAPosixFileMark) {
  testing::TempDir dir;
  const std::string content =
      R"({"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":2,"ph":"X","args":{"fname":"/d/a","ret":3}})"
      "\n"
      R"({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":20,"dur":5,"ph":"X","args":{"fname":"/d/a","ret":4096}})"
      "\n"
      R"({"name":"fwrite","cat":"STDIO","pid":1,"tid":1,"ts":30,"dur":1,"ph":"X","args":{"fname":"/d/b","size":2,"ret":5}})"
      "\n"
      R"({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":40,"dur":1,"ph":"X","args":{"ret":7}})"
      "\n";
  TracePlan plan;
  ASSERT_EQ(plan_traces({dir.write("trace-0-of-1.pfw", content)}, plan), "");
  NameTable names;
  BatchBuilder builder(names, BatchBuilder::Options{});
  std::vector<Event> events;
  const BatchBuilder::Emit emit = [&](const DecodedBatch& batch) {
    events.insert(events.end(), batch.events.begin(), batch.events.end());
  };
  for (const RankGroup& group : plan.ranks) {
    RankStream stream(plan, group);
    ASSERT_EQ(stream.open(), "");
    const TraceEvent* event = nullptr;
    const TraceFileInfo* file = nullptr;
    while (stream.next(event, file))
      builder.add(group, *file, *event, emit);
    builder.finish_rank(group, emit);
  }
  ASSERT_EQ(events.size(), 6u);
  const auto is_mark = [&](const Event& e, std::string_view path, std::int64_t id) {
    return e.kind == EventKind::kMark && names.str(e.cat) == "posix_file" &&
           names.str(e.name) == path && e.value == id;
  };
  const auto is_call = [&](const Event& e, std::string_view name, std::uint32_t id,
                           std::int64_t value) {
    return e.kind == EventKind::kComplete && names.str(e.name) == name && e.region_id == id &&
           (e.flags & wire::kEventFlagCompleteValue) != 0 && e.value == value;
  };
  EXPECT_TRUE(is_mark(events[0], "/d/a", 1));
  EXPECT_EQ(events[0].ts_ns, events[1].ts_ns) << "named at its first call";
  EXPECT_TRUE(is_call(events[1], "open", 1, -1)) << "an open moves no bytes";
  EXPECT_TRUE(is_call(events[2], "read", 1, 4096)) << "the file is named once";
  EXPECT_TRUE(is_mark(events[3], "/d/b", 2));
  EXPECT_TRUE(is_call(events[4], "fwrite", 2, 10));
  EXPECT_TRUE(is_call(events[5], "read", 0, 7)) << "no file: its bytes only";
}

TEST(BatchBuilder, KinetoGpuRowsBelongToTheTrainingProcessAsCupti) {
  std::uint64_t read = 0;
  const auto sources = build({testing::test_data("kineto/two-rank/sampled_rank-1.json.gz")}, read);
  ASSERT_EQ(sources.size(), 1u);
  const Source& s = sources.begin()->second;
  EXPECT_EQ(s.info.rank, 1);
  EXPECT_EQ(s.info.role, ProcessRole::kMain);
  EXPECT_EQ(s.info.device_source, DeviceSource::kCupti);
  EXPECT_EQ(s.events, read);
}

}  // namespace
}  // namespace stallwatch::collector
