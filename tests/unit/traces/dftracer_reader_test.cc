// SPDX-License-Identifier: MIT
#include "dftracer_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "trace_files.h"
#include "traces/trace_reader.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

struct Read {
  std::vector<TraceEvent> events;
  std::vector<std::string> names;  // copies: the events' views die with the reader
  std::vector<std::string> cats;
  std::vector<std::string> files;
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
    r.cats.emplace_back(event.cat);
    r.files.emplace_back(event.file);
    r.events.push_back(event);
  }
  r.info = reader->info();
  r.stats = reader->stats();
  r.error = reader->error();
  return r;
}

constexpr std::string_view kChromeDialect =
    "[\n"
    R"({"id":1,"name":"HH","cat":"dftracer","pid":100,"tid":100,"ph":"M","args":{"hhash":9509357668201227806,"name":"node7","value":9509357668201227806}})"
    "\n"
    R"({"id":2,"name":"start","cat":"dftracer","pid":100,"tid":100,"ts":1000,"dur":0,"ph":"X","args":{"hhash":9509357668201227806,"ppid":42}})"
    "\n"
    R"({"id":3,"name":"read","cat":"POSIX","pid":100,"tid":100,"ts":1500,"dur":250,"ph":"X","args":{"hhash":9509357668201227806,"ret":4096}})"
    "\n"
    R"({"id":4,"name":"TorchFramework.compute","cat":"ai_framework","pid":100,"tid":100,"ts":2000,"dur":1000,"ph":"X","args":{"step":"3","epoch":"1"}})"
    "\n"
    "]\n";

TEST(DftracerReader, ReadsTheBracketDialectWithMetadata) {
  TempDir dir;
  const Read r = read_all(dir.write("trace-2-of-4.pfw", kChromeDialect));
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.info.host, "node7");
  EXPECT_EQ(r.info.ppid, 42);
  EXPECT_EQ(r.info.pid, 100);
  EXPECT_EQ(r.info.rank, 2);
  EXPECT_EQ(r.info.world_size, 4);
  EXPECT_EQ(r.stats.metadata, 1u);
  EXPECT_EQ(r.stats.malformed, 0u);
  EXPECT_EQ(r.cats[1], "POSIX");
  EXPECT_EQ(r.names[1], "read");
  EXPECT_EQ(r.events[1].kind, TraceEventKind::kComplete);
  EXPECT_EQ(r.events[1].ts_ns, 1'500'000);
  EXPECT_EQ(r.events[1].dur_ns, 250'000);
  EXPECT_EQ(r.events[2].step, 3);
  EXPECT_EQ(r.events[2].epoch, 1);
}

constexpr std::string_view kLinesDialect =
    R"({"name":"HH","cat":"dftracer","type":1,"pid":7,"tid":7,"ph":4,"args":{"hhash":"8bf0c3e9a2b1d4f5","name":"gpu-node","value":"8bf0c3e9a2b1d4f5"}})"
    "\n"
    R"({"id":1,"name":"pread","cat":"POSIX","type":3,"pid":7,"tid":7,"ts":100,"dur":20,"ph":1,"args":{"hhash":"8bf0c3e9a2b1d4f5","fhash":"abc"}})"
    "\n"
    R"({"name":"cpu","cat":"sys","type":7,"ts":150,"ph":2,"pid":7,"tid":7,"args":{"hhash":"8bf0c3e9a2b1d4f5","value":42}})"
    "\n"
    R"({"name":"pread","cat":"POSIX","type":3,"ts":0,"ph":3,"pid":7,"tid":7,"args":{"hhash":"8bf0c3e9a2b1d4f5","count":12,"dur_sum":240}})"
    "\n";

TEST(DftracerReader, ReadsTheIntegerPhaseDialectWithHexHashes) {
  TempDir dir;
  const Read r = read_all(dir.write("app.pfw", kLinesDialect));
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.info.host, "gpu-node");
  EXPECT_EQ(r.events[0].kind, TraceEventKind::kComplete);
  EXPECT_EQ(r.events[0].ts_ns, 100'000);
  EXPECT_EQ(r.events[0].dur_ns, 20'000);
  EXPECT_EQ(r.events[1].kind, TraceEventKind::kCounter);
  EXPECT_EQ(r.names[1], "cpu");
  EXPECT_EQ(r.events[1].value, 42);
  EXPECT_EQ(r.events[2].kind, TraceEventKind::kAggregated);
  EXPECT_EQ(r.stats.aggregated, 1u);
  EXPECT_EQ(r.stats.malformed, 0u);
}

TEST(DftracerReader, GzipFilesReadTheSameAsPlainOnes) {
  TempDir dir;
  const Read plain = read_all(dir.write("a.pfw", kLinesDialect));
  const Read packed = read_all(dir.write("a.pfw.gz", kLinesDialect, true));
  ASSERT_EQ(packed.error, "");
  ASSERT_EQ(packed.events.size(), plain.events.size());
  for (std::size_t i = 0; i < plain.events.size(); ++i) {
    EXPECT_EQ(packed.events[i].ts_ns, plain.events[i].ts_ns);
    EXPECT_EQ(packed.names[i], plain.names[i]);
  }
  EXPECT_EQ(packed.info.host, "gpu-node");
}

TEST(DftracerReader, CustomMetadataTimestampsBecomeMarks) {
  const std::string content =
      R"({"name":"CM","cat":"dftracer","type":1,"pid":7,"tid":7,"ph":4,"args":{"hhash":"ab","name":"epoch.start","value":"1700000000000000"}})"
      "\n"
      R"({"name":"CM","cat":"dftracer","type":1,"pid":7,"tid":7,"ph":4,"args":{"hhash":"ab","name":"epoch.end","value":"1700000005000000"}})"
      "\n"
      R"({"name":"CM","cat":"dftracer","type":1,"pid":7,"tid":7,"ph":4,"args":{"hhash":"ab","name":"epoch.start","value":"1700000006000000"}})"
      "\n"
      R"({"name":"CM","cat":"dftracer","type":1,"pid":7,"tid":7,"ph":4,"args":{"hhash":"ab","name":"batch_size","value":"32"}})"
      "\n";
  TempDir dir;
  const Read r = read_all(dir.write("marks.pfw", content));
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.names[0], "epoch.start");
  EXPECT_EQ(r.events[0].kind, TraceEventKind::kMark);
  EXPECT_EQ(r.events[0].ts_ns, 1'700'000'000'000'000'000);
  EXPECT_EQ(r.events[0].value, 0);
  EXPECT_EQ(r.names[1], "epoch.end");
  EXPECT_EQ(r.events[1].ts_ns, 1'700'000'005'000'000'000);
  EXPECT_EQ(r.names[2], "epoch.start");
  EXPECT_EQ(r.events[2].value, 1);  // the second epoch
  EXPECT_EQ(r.stats.metadata, 4u);  // batch_size stays metadata
}

TEST(DftracerReader, ForkedChildrenKeepTheParentPidButGetTheirOwnProcess) {
  const std::string content =
      R"({"name":"fork","cat":"POSIX","pid":100,"tid":100,"ts":10,"dur":5,"ph":"X","args":{"ret":101}})"
      "\n"
      R"({"name":"fork","cat":"POSIX","pid":100,"tid":101,"ts":10,"dur":6,"ph":"X","args":{"ret":0}})"
      "\n"
      R"({"name":"read","cat":"POSIX","pid":100,"tid":101,"ts":20,"dur":5,"ph":"X"})"
      "\n"
      R"({"name":"work","cat":"compute","pid":100,"tid":102,"ts":30,"dur":5,"ph":"X"})"
      "\n";
  TempDir dir;
  const Read r = read_all(dir.write("fork.pfw", content));
  ASSERT_EQ(r.events.size(), 4u);
  EXPECT_EQ(r.events[0].os_pid, 100);
  EXPECT_EQ(r.events[1].os_pid, 101);
  EXPECT_EQ(r.events[2].os_pid, 101);
  EXPECT_EQ(r.events[2].pid, 100);
  EXPECT_EQ(r.events[3].os_pid, 100);  // a thread, not a forked child
}

TEST(DftracerReader, MalformedLinesAreReportedWithLineNumbersAndSkipped) {
  const std::string content =
      "[\n"
      R"({"name":"a","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"})"
      "\n"
      R"({"name":"b","cat":"POSIX","pid":1,"tid":1,"ts":)"
      "\n"
      "this is not json\n"
      R"({"name":"c","cat":"POSIX","pid":1,"tid":1,"dur":1,"ph":"X"})"
      "\n"
      R"({"name":"d","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":1,"ph":"X"})"
      "\n"
      "]\n";
  TempDir dir;
  const std::string path = dir.write("bad.pfw", content);
  const Read r = read_all(path);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.names[0], "a");
  EXPECT_EQ(r.names[1], "d");
  EXPECT_EQ(r.stats.malformed, 3u);
  ASSERT_EQ(r.stats.problems.size(), 3u);
  EXPECT_EQ(r.stats.problems[0].line, 3u);
  EXPECT_EQ(r.stats.problems[1].line, 4u);
  EXPECT_EQ(r.stats.problems[2].line, 5u);
  EXPECT_NE(to_string(r.stats.problems[2]).find(path + ":5: missing \"ts\""), std::string::npos)
      << to_string(r.stats.problems[2]);
}

TEST(DftracerReader, AMissingFileIsAnError) {
  std::string error;
  EXPECT_EQ(open_trace_reader("/nonexistent/trace.pfw", error), nullptr);
  EXPECT_NE(error.find("cannot open /nonexistent/trace.pfw"), std::string::npos) << error;
}

TEST(DftracerReader, ACutOffGzipKeepsWhatCameBeforeTheCut) {
  std::string content;
  for (int i = 0; i < 20000; ++i) {
    content += R"({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":)" + std::to_string(1000 + i) +
               R"(,"dur":1,"ph":"X","args":{"hhash":"ab","i":)" + std::to_string(i * 7919) + "}}\n";
  }
  TempDir dir;
  const std::string path = dir.write("cut.pfw.gz", content, true);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const Read r = read_all(path);
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.events.size(), 1000u);
  EXPECT_LT(r.events.size(), 20000u);
  ASSERT_GE(r.stats.problems.size(), 1u);
  EXPECT_NE(r.stats.problems.back().message.find("gzip"), std::string::npos)
      << r.stats.problems.back().message;
}

TEST(DftracerReader, ReadsTheSharedDlioTrace) {
  const Read r = read_all(testing::test_data("dftracer-dlio/trace-0-of-8.pfw.gz"));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.events.size(), 2261u);
  EXPECT_EQ(r.stats.malformed, 0u);
  EXPECT_EQ(r.info.rank, 0);
  EXPECT_EQ(r.info.world_size, 8);
  EXPECT_EQ(r.info.host, "corona171");
  EXPECT_EQ(r.info.pid, 1028567);
  std::set<std::int64_t> children;
  for (const TraceEvent& e : r.events) {
    if (e.os_pid != e.pid) children.insert(e.os_pid);
  }
  EXPECT_EQ(children.size(), 6u);  // six forked data-loader processes
}

// dftracer's POSIX read and write records carry the bytes moved as args.ret
// (900 preads and one write in this trace, summed independently).
TEST(DftracerReader, ReadAndWriteCallsCarryTheBytesTheyMoved) {
  const Read r = read_all(testing::test_data("dftracer-dlio/trace-0-of-8.pfw.gz"));
  ASSERT_EQ(r.error, "");
  std::int64_t read = 0;
  std::int64_t written = 0;
  std::size_t calls = 0;
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    if (r.events[i].bytes < 0) continue;
    ++calls;
    (r.names[i] == "pread" ? read : written) += r.events[i].bytes;
  }
  EXPECT_EQ(calls, 901u);
  EXPECT_EQ(read, 14'658'196'100);
  EXPECT_EQ(written, 11'420);
}

// fread/fwrite move args.ret items of args.size bytes; a failed call moved
// none; a call that moves no bytes, or a record without args.ret, says nothing.
TEST(DftracerReader, StdioCallsMoveTheirItemsTimesTheirSize) {
  TempDir dir;
  const std::string content =
      R"({"name":"fread","cat":"STDIO","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X","args":{"size":4,"count":16,"ret":10}})"
      "\n"
      R"({"name":"fwrite","cat":"STDIO","pid":1,"tid":1,"ts":2,"dur":1,"ph":"X","args":{"count":3,"ret":3}})"
      "\n"
      R"({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":3,"dur":1,"ph":"X","args":{"fd":3,"count":8,"ret":-1}})"
      "\n"
      R"({"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":4,"dur":1,"ph":"X","args":{"ret":3}})"
      "\n"
      R"({"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":1,"ph":"X"})"
      "\n";
  const Read r = read_all(dir.write("stdio.pfw", content));
  ASSERT_EQ(r.error, "");
  std::vector<std::int64_t> bytes;
  for (const TraceEvent& e : r.events)
    bytes.push_back(e.bytes);
  EXPECT_EQ(bytes, (std::vector<std::int64_t>{40, -1, 0, -1, -1}));
}

// A POSIX or STDIO call's file: args.fname (older dftracer), else its
// args.fhash as an FH record named it; an fhash no FH record names is
// "<unknown file>", and a call without either has none.
TEST(DftracerReader, CallsNameTheirFileByFnameOrByTheFhRecordOfTheirFhash) {
  TempDir dir;
  const std::string content =
      R"({"id":1,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"hhash":7,"name":"/data/a.bin","value":16070890475139568535}})"
      "\n"
      R"({"id":2,"name":"pread","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X","args":{"hhash":7,"fd":3,"fhash":16070890475139568535,"ret":8}})"
      "\n"
      R"({"id":3,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":20,"dur":5,"ph":"X","args":{"fname":"/data/b.bin","ret":4}})"
      "\n"
      R"({"id":4,"name":"close","cat":"POSIX","pid":1,"tid":1,"ts":30,"dur":1,"ph":"X","args":{"fhash":"00ff"}})"
      "\n"
      R"({"id":5,"name":"fork","cat":"POSIX","pid":1,"tid":1,"ts":40,"dur":1,"ph":"X","args":{"ret":2}})"
      "\n"
      R"({"id":6,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"/data/c \"q\".bin","value":"00ff"}})"
      "\n"
      R"({"id":7,"name":"fread","cat":"STDIO","pid":1,"tid":1,"ts":50,"dur":1,"ph":"X","args":{"fhash":"00ff","size":2,"ret":3}})"
      "\n"
      R"({"id":8,"name":"compute","cat":"ai_framework","pid":1,"tid":1,"ts":60,"dur":1,"ph":"X","args":{"fname":"/not/a/call"}})"
      "\n";
  const Read r = read_all(dir.write("files.pfw", content));
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.stats.malformed, 0u);
  // The FH record is metadata (no event); the one that names 00ff after the
  // close names it for the fread.
  EXPECT_EQ(r.files, (std::vector<std::string>{"/data/a.bin", "/data/b.bin", "<unknown file>", "",
                                               "/data/c \"q\".bin", ""}));
  EXPECT_EQ(r.events[0].bytes, 8);
  EXPECT_EQ(r.events[4].bytes, 6);
}

}  // namespace
}  // namespace stallwatch::collector
