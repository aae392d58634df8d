// SPDX-License-Identifier: MIT
#include "traces/batch_builder.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "trace_files.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {
namespace {

struct Source {
  SourceInfo info;
  std::vector<std::uint64_t> seqs;
  std::uint64_t events = 0;
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
    EXPECT_LE(batch.events.size(), 100u);
    for (const Event& e : batch.events)
      EXPECT_LE(e.ts_ns + e.dur_ns, batch.sent_at_ns);
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
  std::uint64_t events = 0;
  int workers = 0;
  const std::int32_t main_pid = 1028572;
  for (const auto& [pid, s] : sources) {
    events += s.events;
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
  EXPECT_EQ(events, read);
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
