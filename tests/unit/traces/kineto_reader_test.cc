// SPDX-License-Identifier: MIT
#include "kineto_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "trace_files.h"
#include "traces/trace_reader.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

constexpr std::string_view kTrace = R"({
  "schemaVersion": 1,
  "traceEvents": [
  {
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 50, "tid": 50,
    "ts": 1000.125, "dur": 10.5,
    "args": {"External id": 1}
  },
  {"ph": "X", "cat": "kernel", "name": "gemm \"q\" {x} [y]", "pid": 0, "tid": 7, "ts": 1005.0005, "dur": 3,
   "args": {"stream": 7, "correlation": 99, "grid": [4, 1, 1]}},
  {"ph": "i", "name": "mark", "pid": 50, "tid": 50, "ts": 1001, "s": "t"},
  {"ph": "M", "name": "process_name", "pid": 50, "args": {"name": "python"}},
  {"ph": "s", "id": 99, "pid": 50, "tid": 50, "ts": 1000.5, "cat": "ac2g", "name": "ac2g"}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 4},
  "baseTimeNanoseconds": 1700000000000000000
}
)";

struct Read {
  std::vector<TraceEvent> events;
  std::vector<std::string> names;
  TraceFileInfo info;
  ReadStats stats;
  std::string error;
};

Read read_all(const std::string& path) {
  Read r;
  std::string error;
  auto reader = open_trace_reader(path, error);
  if (!reader) {
    r.error = error;
    return r;
  }
  TraceEvent event;
  while (reader->next(event)) {
    r.names.emplace_back(event.name);
    r.events.push_back(event);
  }
  r.info = reader->info();
  r.stats = reader->stats();
  r.error = reader->error();
  return r;
}

TEST(KinetoReader, StreamsEventsWithExactTimesAndDeviceFields) {
  TempDir dir;
  for (bool gzip : {false, true}) {
    const Read r = read_all(dir.write(gzip ? "t.json.gz" : "t.json", kTrace, gzip));
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.info.format, TraceFormat::kKineto);
    ASSERT_EQ(r.events.size(), 3u);
    EXPECT_EQ(r.events[0].ts_ns, 1'000'125);
    EXPECT_EQ(r.events[0].dur_ns, 10'500);
    EXPECT_EQ(r.events[0].stream, -1);
    EXPECT_EQ(r.names[1], "gemm \"q\" {x} [y]");
    EXPECT_EQ(r.events[1].ts_ns, 1'005'000);  // sub-ns digits are dropped
    EXPECT_EQ(r.events[1].stream, 7);
    EXPECT_EQ(r.events[1].correlation, 99);
    EXPECT_EQ(r.events[1].index, 1u);
    EXPECT_DOUBLE_EQ(r.events[1].ts_us, 1005.0005);
    EXPECT_EQ(r.events[2].kind, TraceEventKind::kMark);
    EXPECT_TRUE(r.info.fractional_ts);
    // Members after traceEvents are read too.
    EXPECT_EQ(r.info.rank, 3);
    EXPECT_EQ(r.info.world_size, 4);
    EXPECT_EQ(r.info.base_time_ns, 1'700'000'000'000'000'000);
    EXPECT_EQ(r.stats.metadata, 1u);
    EXPECT_EQ(r.stats.malformed, 0u);
  }
}

TEST(KinetoReader, MetadataScanFindsTheRankBeforeStreaming) {
  TempDir dir;
  TraceFileInfo info;
  EXPECT_EQ(KinetoReader::scan_metadata(dir.write("t.json", kTrace), info), "");
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.base_time_ns, 1'700'000'000'000'000'000);
}

TEST(KinetoReader, ACutOffDocumentKeepsTheCompleteEvents) {
  const std::string cut(kTrace.substr(0, kTrace.find("\"dur\": 3")));
  TempDir dir;
  const Read r = read_all(dir.write("cut.json", cut));
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.names[0], "aten::mm");
  EXPECT_EQ(r.stats.malformed, 1u);
}

TEST(KinetoReader, BadElementsAreCountedWithTheirOffset) {
  const std::string content =
      R"({"traceEvents": [ 17, {"ph": "X", "cat": "c", "name": "ok", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
          {"ph": "X", "cat": "c", "name": "no ts", "pid": 1, "tid": 1, "dur": 1} ]})";
  TempDir dir;
  const Read r = read_all(dir.write("bad.json", content));
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.stats.malformed, 2u);
  ASSERT_EQ(r.stats.problems.size(), 2u);
  EXPECT_EQ(r.stats.problems[0].offset, content.find("17"));
  EXPECT_TRUE(r.info.fractional_ts);  // a missing ts makes HTA round
}

// A stray '}' among the events (trace_reader_fuzz, from a corrupted gzip
// trace) was read as an empty event forever; it now ends the document as
// malformed at its byte, keeping what came before.
TEST(KinetoReader, AStrayBraceAmongTheEventsEndsTheReadAtItsByte) {
  const std::string content =
      R"({"traceEvents": [ {"ph": "X", "cat": "c", "name": "ok", "pid": 1, "tid": 1, "ts": 5, "dur": 1} }, 17 ]})";
  TempDir dir;
  const Read r = read_all(dir.write("brace.json", content));
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.events.size(), 1u);
  ASSERT_EQ(r.stats.problems.size(), 1u);
  const std::size_t brace = content.find("} }") + 2;
  EXPECT_EQ(r.stats.problems[0].message, "unexpected '}' at byte " + std::to_string(brace));
}

TEST(KinetoReader, AFileThatIsNoJsonObjectIsUnreadable) {
  TempDir dir;
  const Read r = read_all(dir.write("junk.json", "not json at all\n"));
  EXPECT_NE(r.error, "");
  EXPECT_TRUE(r.events.empty());
}

TEST(KinetoReader, ReadsTheSharedNanosecondTrace) {
  const Read r =
      read_all(testing::test_data("kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.stats.malformed, 0u);
  EXPECT_EQ(r.info.rank, 0);
  EXPECT_TRUE(r.info.fractional_ts);
  std::size_t gpu = 0;
  for (const TraceEvent& e : r.events)
    gpu += e.stream != -1;
  EXPECT_EQ(gpu, 6095u);
}

}  // namespace
}  // namespace stallwatch::collector
