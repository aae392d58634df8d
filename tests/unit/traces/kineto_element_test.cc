// SPDX-License-Identifier: MIT
#include "kineto_element.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "input_file.h"
#include "json_object_scanner.h"
#include "kineto_element_equal.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

// One parse of an element, held with the padding both parsers may read.
struct Parsed {
  std::string buffer;
  TraceEvent event;
  KinetoElement element;
  std::string problem;
  bool ok = false;
};

Parsed parse(std::string_view text, bool fast) {
  static simdjson::ondemand::parser parser;
  Parsed p;
  p.buffer.assign(text);
  p.buffer.append(JsonObjectScanner::kPadding, '"');  // a parser reading into it would show
  const std::string_view view(p.buffer.data(), text.size());
  p.ok = fast ? parse_kineto_element_fast(view, p.event, p.element)
              : parse_kineto_element(parser, view, p.event, p.element, p.problem);
  return p;
}

bool same(const Parsed& a, const Parsed& b) {
  return same_kineto_fields(a.event, a.element, b.event, b.element);
}

TEST(KinetoElement, TheHandWrittenParserReadsAKernelRowAsSimdjsonDoes) {
  constexpr std::string_view kKernel = R"j({
    "ph": "X", "cat": "kernel", "name": "void gemm<float, 4>(int, float*)", "pid": 0, "tid": 7,
    "ts": 1712195495505582.988, "dur": 4.928,
    "args": {
      "External id": 112,      "queued": 0, "device": 0, "context": 1,      "stream": 7, "correlation": 135071,      "blocks per SM": 5.300000,      "grid": [4, 106, 1],      "est. achieved occupancy %": 33
    }
  })j";
  const Parsed fast = parse(kKernel, true);
  const Parsed slow = parse(kKernel, false);
  ASSERT_TRUE(fast.ok);
  ASSERT_TRUE(slow.ok) << slow.problem;
  EXPECT_TRUE(same(fast, slow));
  EXPECT_EQ(fast.element.ph, "X");
  EXPECT_EQ(fast.event.name, "void gemm<float, 4>(int, float*)");
  EXPECT_EQ(fast.event.cat, "kernel");
  EXPECT_EQ(fast.event.tid, 7);
  EXPECT_EQ(fast.event.ts_ns, 1712195495505582988);
  EXPECT_EQ(fast.event.ts_us, 1712195495505582.988);
  EXPECT_TRUE(fast.event.ts_is_float);
  EXPECT_EQ(fast.event.dur_ns, 4928);
  EXPECT_EQ(fast.event.stream, 7);
  EXPECT_EQ(fast.event.correlation, 135071);
  EXPECT_EQ(fast.event.external_id, 112);
}

// What the hand-written parser takes, it reads as simdjson does.
TEST(KinetoElement, WhatTheHandWrittenParserTakesEqualsSimdjson) {
  const std::vector<std::string_view> taken = {
      R"j({})j",
      R"j( {"ph":"i","name":"mark","pid":1,"tid":1,"ts":5,"s":"t"})j",
      R"j({"ph": "X", "ts": -0, "dur": 0.000, "pid": -12, "tid": 999999999999999999})j",
      R"j({"ph":"X","ts":1,"ts":2.5,"args":{"stream":1},"args":{"correlation":9}})j",
      R"j({"ph":"X","cat":"c","name":"n","ts":1,"dur":1,"args":[1,2,{"a":[true,false,null]}]})j",
      R"j({"ph":"X","name":"","ts":0.1234567890123456789,"dur":1e0,"args":{"x":-1.5E+7}})j",
      "{\n\t\"ph\" :\r\"X\" ,\"ts\"\n:\t1\n}",
      R"j({"ph":"M","name":"process_name","pid":50,"args":{"name":"python"}})j",
      R"j({"ph":"X","cat":"c","name":"n","ts":1,"dur":-1})j",
  };
  for (std::string_view text : taken) {
    const Parsed fast = parse(text, true);
    const Parsed slow = parse(text, false);
    if (text.find("1e0") != std::string_view::npos) {
      EXPECT_FALSE(fast.ok) << text;  // an exponent in "dur" is left to simdjson
      continue;
    }
    EXPECT_TRUE(fast.ok) << text;
    EXPECT_TRUE(slow.ok) << text << ": " << slow.problem;
    EXPECT_TRUE(same(fast, slow)) << text;
  }
}

// Anything else is left to simdjson, which unescapes, validates UTF-8, reads
// exponents, ids written as strings or floats, and says what is malformed.
TEST(KinetoElement, TheHandWrittenParserLeavesTheRestToSimdjson) {
  const std::vector<std::string_view> left = {
      R"j({"ph":"X","name":"a\"b","ts":1})j",                   // an escape
      "{\"ph\":\"X\",\"name\":\"caf\xc3\xa9\",\"ts\":1}",       // UTF-8
      "{\"ph\":\"X\",\"name\":\"a\tb\",\"ts\":1}",              // a control character
      "{\"ph\":\"X\",\"name\":\"\xff\",\"ts\":1}",              // not UTF-8
      R"j({"ph":"X","ts":1.5e3})j",                             // an exponent
      R"j({"ph":"X","tid":"stream 7","ts":1})j",                // an id as a string
      R"j({"ph":"X","pid":0.5,"ts":1})j",                       // an id as a float
      R"j({"ph":"X","args":{"stream":1234567890123456789}})j",  // 19 digits
      R"j({"ph":"X","name":12.5,"ts":1})j",                     // a number as a name
      R"j({"ph":"X","ts":01})j",                                // a leading zero
      R"j({"ph":"X","ts":1,})j",                                // a trailing comma
      R"j({"ph":"X","ts":1} )j",                                // bytes after the object
      R"j({"ph":"X","args":{"a":tru}})j",                       // not a literal
      R"j({"ph":"X","args":{"a":[1,}})j",                       // unbalanced
      R"j([1, 2, 3])j",                                         // not an object
      R"j({"ph":"X","ts")j",                                    // cut short
  };
  for (std::string_view text : left) {
    EXPECT_FALSE(parse(text, true).ok) << text;
  }
  // What simdjson then makes of some of them.
  const Parsed escaped = parse(left[0], false);
  ASSERT_TRUE(escaped.ok);
  EXPECT_EQ(escaped.event.name, "a\"b");
  const Parsed exponent = parse(left[4], false);
  ASSERT_TRUE(exponent.ok);
  EXPECT_EQ(exponent.event.ts_ns, 1'500'000);
  EXPECT_TRUE(exponent.event.ts_is_float);
  const Parsed not_object = parse(left[14], false);
  EXPECT_FALSE(not_object.ok);
  EXPECT_EQ(not_object.problem, "traceEvents element is not an object");
}

// simdjson 3.0's get_double read "0.95000000000000000000" as 0.0277; both
// parsers read times as Python's json module does.
TEST(KinetoElement, ALongFractionReadsAsPythonReadsIt) {
  constexpr std::string_view kLong =
      R"j({"ph":"X","cat":"c","name":"n","ts":0.95000000000000000000,"dur":0.1234567890123456789012})j";
  for (bool fast : {true, false}) {
    const Parsed p = parse(kLong, fast);
    ASSERT_TRUE(p.ok) << p.problem;
    EXPECT_EQ(p.event.ts_us, 0.95);
    EXPECT_EQ(p.event.ts_ns, 950);
    EXPECT_EQ(p.event.dur_us, 0.12345678901234568);
    EXPECT_EQ(p.event.dur_ns, 123);
  }
}

TEST(KinetoElement, NestingPastSixtyFourLevelsIsLeftToSimdjson) {
  std::string deep = R"j({"ph":"X","args":{"a":)j";
  deep += std::string(70, '[') + std::string(70, ']') + "}}";
  EXPECT_FALSE(parse(deep, true).ok);
  EXPECT_TRUE(parse(deep, false).ok);
  std::string shallow = R"j({"ph":"X","args":{"a":)j";
  shallow += std::string(40, '[') + std::string(40, ']') + "}}";
  EXPECT_TRUE(parse(shallow, true).ok);
}

// Every element of the profiler traces in tests/data: each one the
// hand-written parser takes reads as simdjson reads it, and it takes all but
// the profiler's own rows whose pid or tid is a string ("Spans", "Traces").
TEST(KinetoElement, TheProfilerTracesAreReadByHandAsBySimdjson) {
  for (const char* name : {"kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                           "kineto/two-rank/sampled_rank-0.json.gz",
                           "kineto/execution-trace/benchmark_simple_add_trace.json.gz"}) {
    std::string error;
    auto file = InputFile::open(testing::test_data(name), error);
    ASSERT_NE(file, nullptr) << error;
    JsonObjectScanner scanner(*file, "traceEvents");
    std::size_t elements = 0;
    std::size_t left = 0;
    for (JsonObjectScanner::Item item; (item = scanner.next()) != JsonObjectScanner::Item::kEnd;) {
      ASSERT_NE(item, JsonObjectScanner::Item::kError) << scanner.error();
      if (item != JsonObjectScanner::Item::kElement) continue;
      ++elements;
      const Parsed fast = parse(scanner.text(), true);
      if (!fast.ok) {
        ++left;
        continue;
      }
      const Parsed slow = parse(scanner.text(), false);
      ASSERT_TRUE(slow.ok) << scanner.text();
      ASSERT_TRUE(same(fast, slow)) << scanner.text();
    }
    EXPECT_GT(elements, 100u) << name;
    EXPECT_LE(left, 4u) << name << ": " << left << " of " << elements;
  }
}

}  // namespace
}  // namespace stallwatch::collector
