#include "replay/dftracer_record.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "test_files.h"

namespace stallwatch::collector {
namespace {

void expect_same(const DftracerRecord& a, const DftracerRecord& b, const std::string& line) {
  EXPECT_EQ(a.name, b.name) << line;
  EXPECT_EQ(a.cat, b.cat) << line;
  EXPECT_EQ(a.pid, b.pid) << line;
  EXPECT_EQ(a.tid, b.tid) << line;
  EXPECT_EQ(a.ts_ns, b.ts_ns) << line;
  EXPECT_EQ(a.dur_ns, b.dur_ns) << line;
  EXPECT_EQ(a.phase, b.phase) << line;
  EXPECT_EQ(a.has_pid, b.has_pid) << line;
  EXPECT_EQ(a.has_ts, b.has_ts) << line;
  EXPECT_EQ(a.has_dur, b.has_dur) << line;
  EXPECT_EQ(a.has_phase, b.has_phase) << line;
  EXPECT_EQ(a.meta_name, b.meta_name) << line;
  EXPECT_EQ(a.meta_value, b.meta_value) << line;
  EXPECT_EQ(a.has_meta_value, b.has_meta_value) << line;
  EXPECT_EQ(a.counter_value, b.counter_value) << line;
  EXPECT_EQ(a.has_counter_value, b.has_counter_value) << line;
  EXPECT_EQ(a.step, b.step) << line;
  EXPECT_EQ(a.epoch, b.epoch) << line;
  EXPECT_EQ(a.fork_ret, b.fork_ret) << line;
  EXPECT_EQ(a.start_ppid, b.start_ppid) << line;
}

// The fast scanner either declines or agrees with the full JSON parser.
void check(const std::string& text, bool expect_fast) {
  std::string padded = text;
  padded.append(64, ' ');
  const std::string_view line(padded.data(), text.size());
  simdjson::ondemand::parser parser;
  DftracerRecord fast, full;
  std::string problem;
  const bool scanned = scan_dftracer_record(line, fast);
  EXPECT_EQ(scanned, expect_fast) << text;
  if (scanned) {
    ASSERT_TRUE(parse_dftracer_record(parser, line, 64, full, problem)) << problem << "\n" << text;
    expect_same(fast, full, text);
  }
}

TEST(DftracerRecord, FastScannerAgreesWithTheJsonParserOnTheDlioTrace) {
  gzFile in = gzopen(testing::test_data("dftracer-dlio/trace-3-of-8.pfw.gz").c_str(), "rb");
  ASSERT_NE(in, nullptr);
  char buffer[1 << 16];
  std::size_t checked = 0;
  while (gzgets(in, buffer, sizeof buffer) != nullptr) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
      line.pop_back();
    if (line.empty() || line[0] != '{') continue;
    check(line, true);
    ++checked;
  }
  gzclose(in);
  EXPECT_GT(checked, 2000u);
}

TEST(DftracerRecord, FastScannerHandlesBothDialects) {
  check(
      R"({"id":1,"name":"pread","cat":"POSIX","type":3,"pid":7,"tid":7,"ts":100,"dur":20,"ph":1,"args":{"hhash":"8bf0","ret":5}})",
      true);
  check(
      R"({"name":"cpu","cat":"sys","type":7,"ts":150,"ph":2,"pid":7,"tid":7,"args":{"hhash":"8bf0","load":42,"x":[1,{"y":"}"}]}})",
      true);
  check(
      R"({"name":"CM","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"hhash":1,"name":"epoch.start","value":"1700000000000000"}})",
      true);
  check(
      R"({"name":"fork","cat":"POSIX","pid":1,"tid":2,"ts":1,"dur":2,"ph":"X","args":{"ret":0,"ok":true,"n":null}})",
      true);
  check(
      R"({ "name" : "spaced", "cat" : "c", "pid" : 1, "tid" : 1, "ts" : 1.5, "dur" : 2, "ph" : "X" })",
      true);
  check(
      R"({"name":"s","cat":"c","pid":1,"tid":1,"ts":"12","dur":"3.25","ph":"X","args":{"step":"4","epoch":"train"}})",
      true);
  check(R"({})", true);
}

TEST(DftracerRecord, FastScannerDeclinesWhatItDoesNotHandle) {
  check(R"({"name":"esc\"aped","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"})", false);
  check(R"({"name":"n","cat":"c","pid":1.0,"tid":1,"ts":1,"dur":1,"ph":"X"})", false);
  check(R"({"name":"n","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"} trailing)", false);
  check(R"({"name":"n","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X")", false);
  check(R"({"name":"n","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X","args":{"step":4.0}})",
        false);
  check(R"({"name":7,"cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"})", false);
}

}  // namespace
}  // namespace stallwatch::collector
