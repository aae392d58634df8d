// SPDX-License-Identifier: MIT
#include "dftracer_record.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <string_view>
#include <vector>

#include "trace_files.h"

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
  EXPECT_EQ(a.ret, b.ret) << line;
  EXPECT_EQ(a.has_ret, b.has_ret) << line;
  EXPECT_EQ(a.size, b.size) << line;
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

// Non-integral numbers an int64 cannot hold are not integers (found by the
// trace reader's fuzz target: 1e70 as a pid was converted to int64, which is
// undefined), and a time that overflows int64 nanoseconds is not a time: such
// a record is malformed, and the fast scanner declines it or agrees.
TEST(DftracerRecord, NumbersAnInt64CannotHoldAreRejected) {
  simdjson::ondemand::parser parser;
  auto parse = [&](const std::string& text, DftracerRecord& r, std::string& problem) {
    std::string padded = text;
    padded.append(64, ' ');
    return parse_dftracer_record(parser, std::string_view(padded.data(), text.size()), 64, r,
                                 problem);
  };
  for (const char* pid : {"1e70", "-1e70", "9.3e18", "-9.3e18"}) {
    const std::string line = std::string(R"({"name":"n","cat":"c","pid":)") + pid +
                             R"(,"tid":1,"ts":1,"dur":1,"ph":"X"})";
    DftracerRecord r;
    std::string problem;
    EXPECT_FALSE(parse(line, r, problem)) << line;
    EXPECT_EQ(problem, "\"pid\" is not an integer") << line;
    check(line, false);
  }
  // An unsigned integer past int64 wraps, in both scanners (a uint64 -1 is -1).
  for (const char* pid : {"9223372036854775808", "18446744073709551615"}) {
    const std::string line = std::string(R"({"name":"n","cat":"c","pid":)") + pid +
                             R"(,"tid":1,"ts":1,"dur":1,"ph":"X"})";
    DftracerRecord r;
    std::string problem;
    ASSERT_TRUE(parse(line, r, problem)) << problem;
    EXPECT_EQ(static_cast<std::uint64_t>(r.pid), std::stoull(pid)) << line;
    check(line, std::string_view(pid).size() <= 19);
  }
  for (const char* ts : {"1e70", "-1e16", "9.3e15"}) {
    const std::string line = std::string(R"({"name":"n","cat":"c","pid":1,"tid":1,"ts":)") + ts +
                             R"(,"dur":1,"ph":"X"})";
    DftracerRecord r;
    std::string problem;
    EXPECT_FALSE(parse(line, r, problem)) << line;
  }
  // What an int64 does hold still reads: the largest integer, a fraction cut
  // toward zero, and a time in exponent form.
  DftracerRecord r;
  std::string problem;
  ASSERT_TRUE(parse(
      R"({"name":"n","cat":"c","pid":9223372036854775807,"tid":-2.7,"ts":1.5e3,"dur":1,"ph":"X"})",
      r, problem))
      << problem;
  EXPECT_EQ(r.pid, 9223372036854775807);
  EXPECT_EQ(r.tid, -2);
  EXPECT_EQ(r.ts_ns, 1'500'000);
}

// Lines of both dialects and the shapes the fast paths special-case.
const std::vector<std::string>& sample_lines() {
  static const std::vector<std::string> lines = {
      R"({"id":2,"name":"pread","cat":"POSIX","type":3,"pid":100000,"tid":100000,"ts":1744611914000075,"dur":1156,"ph":1,"args":{"hhash":"83f0c1d2e4a5b6c7","fhash":"1f2e3d4c5b6a7980","ret":1048576,"offset":0}})",
      R"({"name":"CM","cat":"dftracer","type":1,"pid":100000,"tid":100000,"ph":4,"args":{"hhash":"83f0c1d2e4a5b6c7","name":"epoch.start","value":"1744611914000000"}})",
      R"({"id":5,"name":"start","cat":"dftracer","pid":1028567,"tid":1028567,"ts":1744611912981173,"dur":0,"ph":"X","args":{"hhash":9509357668201227806,"p_idx":-1,"level":1,"date":"Sun Apr 13","ppid":1028565}})",
      R"({"id":9,"name":"loop.iter","cat":"data_loader","type":6,"pid":7,"tid":7,"ts":123456789012345,"dur":98765,"ph":1,"args":{"hhash":"8bf0","step":"12","epoch":"3"}})",
      R"({"name":"fork","cat":"POSIX","pid":1,"tid":2,"ts":1,"dur":2,"ph":"X","args":{"ret":0}})",
      R"({"name":"cpu","cat":"sys","type":7,"ts":150,"ph":2,"pid":7,"tid":7,"args":{"load":42}})",
      R"({"id":12345678,"name":"n","cat":"c","type":12,"pid":1,"tid":1,"ts":1744611914000075.5,"dur":1744611914000,"ph":1,"args":{"epoch":4,"step":5,"value":"6","name":"x","ppid":3}})",
      R"({"id":0,"name":"vfork","cat":"c","pid":1,"tid":1,"ts":9144611914000075,"dur":1,"ph":1,"args":{"ret":12,"retval":1}})",
  };
  return lines;
}

TEST(DftracerRecord, ClearRestoresEveryDefault) {
  DftracerRecord r;
  std::string padded = sample_lines()[1];
  padded.append(64, ' ');
  ASSERT_TRUE(scan_dftracer_record(padded, r));
  r.pid = r.tid = r.ts_ns = r.dur_ns = r.counter_value = r.step = r.epoch = 5;
  r.ret = r.size = r.start_ppid = 5;
  r.has_ret = true;
  r.has_pid = r.has_ts = r.has_dur = r.has_phase = r.has_meta_value = r.has_counter_value = true;
  r.clear();
  expect_same(r, DftracerRecord{}, "after clear()");
}

TEST(DftracerRecord, FastScannerDeclinesEveryCutOffLineWhateverFollowsIt) {
  // A line cut short (a killed writer, the last line of a damaged .gz) is
  // followed in the buffer by stale bytes: here, the rest of the real line.
  for (const std::string& text : sample_lines()) {
    for (std::size_t cut = 0; cut < text.size(); ++cut) {
      std::string buffer = text;
      buffer.append(64, ' ');
      DftracerRecord r;
      EXPECT_FALSE(scan_dftracer_record(std::string_view(buffer.data(), cut), r))
          << text.substr(0, cut);
    }
  }
}

TEST(DftracerRecord, FastScannerIgnoresWhatFollowsACompleteLine) {
  for (const std::string& text : sample_lines()) {
    for (const std::string tail : {"", "0123456789", "\"}}", "\\\\\\\\", ",\"ts\":1}"}) {
      std::string buffer = text + tail;
      buffer.append(64, tail.empty() ? ' ' : tail.back());
      SCOPED_TRACE(text + " + " + tail);
      check(std::string(buffer.data(), text.size()), true);
      DftracerRecord with_tail, clean;
      ASSERT_TRUE(scan_dftracer_record(std::string_view(buffer.data(), text.size()), with_tail));
      std::string padded = text;
      padded.append(64, ' ');
      ASSERT_TRUE(scan_dftracer_record(std::string_view(padded.data(), text.size()), clean));
      expect_same(with_tail, clean, text);
    }
  }
}

// Every single-byte change of the sample lines: whenever both the fast
// scanner and the JSON parser take the result, they read the same fields.
TEST(DftracerRecord, FastScannerAgreesWithTheJsonParserOnDamagedLines) {
  simdjson::ondemand::parser parser;
  std::size_t compared = 0, declined = 0;
  for (const std::string& text : sample_lines()) {
    for (std::size_t at = 0; at < text.size(); ++at) {
      for (char c : std::string_view("\"\\{}[],:0 9-.eXx")) {
        std::string damaged = text;
        if (damaged[at] == c) continue;
        damaged[at] = c;
        std::string padded = damaged;
        padded.append(64, ' ');
        const std::string_view line(padded.data(), damaged.size());
        DftracerRecord fast, full;
        std::string problem;
        if (!scan_dftracer_record(line, fast)) {
          ++declined;
          continue;
        }
        if (!parse_dftracer_record(parser, line, 64, full, problem)) continue;
        ++compared;
        expect_same(fast, full, damaged);
      }
    }
  }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(declined, 1000u);
}

}  // namespace
}  // namespace stallwatch::collector
