// SPDX-License-Identifier: MIT
#include "execution_trace.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "analyze_run.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

const std::string kEt = "kineto/execution-trace/benchmark_simple_add_et.json.gz";
const std::string kKineto = "kineto/execution-trace/benchmark_simple_add_trace.json.gz";

nlohmann::json read_gzip_json(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr) return nullptr;
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(in, buf, sizeof buf)) > 0)
    text.append(buf, static_cast<std::size_t>(n));
  gzclose(in);
  return nlohmann::json::parse(text);
}

// HTA's pair moved to another rank and process: the Kineto trace says rank
// `rank` and every event ran in `pid`, and so does the ET.
struct MovedPair {
  std::string kineto;
  std::string et;
};
MovedPair move_pair(const testing::TempDir& dir, std::int64_t rank, std::int64_t pid) {
  auto kineto = read_gzip_json(testing::test_data(kKineto));
  kineto["distributedInfo"]["rank"] = rank;
  for (auto& e : kineto["traceEvents"]) {
    if (e.contains("pid") && e["pid"].is_number_integer() && e["pid"] == 563677) e["pid"] = pid;
  }
  auto et = read_gzip_json(testing::test_data(kEt));
  et["pid"] = pid;
  const std::string tag = std::to_string(rank);
  return {dir.write("rank" + tag + ".pt.trace.json", kineto.dump()),
          dir.write("et-" + tag + ".json", et.dump())};
}

TEST(ExecutionTrace, ReadsOperatorNodesByRecordFunctionId) {
  ExecutionTrace et;
  ASSERT_EQ(read_execution_trace(testing::test_data(kEt), et), "");
  EXPECT_EQ(et.nodes, 38u);
  EXPECT_EQ(et.pid, 563677);
  // The observer's own thread node (rf_id 0) is not an operator.
  EXPECT_EQ(et.min_rf_id, 1);
  EXPECT_EQ(et.max_rf_id, 36);
  const EtNode& add = et.by_rf_id.at(22);
  EXPECT_EQ(add.name, "aten::add");
  EXPECT_EQ(add.id, 36);
  EXPECT_EQ(add.input_shapes, "[[256,256],[256,256],[]]");
  EXPECT_EQ(add.input_types, R"x(["Tensor(float)","Tensor(float)","Int"])x");

  ExecutionTrace bad;
  EXPECT_NE(read_execution_trace(testing::test_data(kKineto), bad), "");
  EXPECT_NE(read_execution_trace("/no/such/et.json", bad), "");
}

// PyTorch 1.13's ExecutionGraphObserver, recorded by Debian's torch: the same
// schema with the observer's root nodes named execution_graph.
TEST(ExecutionTrace, ReadsTorch113sExecutionGraph) {
  ExecutionTrace et;
  ASSERT_EQ(read_execution_trace(testing::test_data("torch113/execution_graph.json.gz"), et), "");
  EXPECT_EQ(et.nodes, 254u);
  EXPECT_EQ(et.min_rf_id, 1);
  EXPECT_EQ(et.max_rf_id, 252);
  const EtNode& addmm = et.by_rf_id.at(14);
  EXPECT_EQ(addmm.name, "aten::addmm");
  EXPECT_EQ(addmm.id, 34);
  EXPECT_EQ(addmm.input_shapes, "[[32],[8,16],[16,32],[],[]]");
}

// HTA's own ET + Kineto pair: every top-level operator call finds the ET
// node whose rf_id is its External id (the node ids below are the ET's).
TEST(ExecutionTrace, JoinsTheOperatorTableToTheEtCollectedWithIt) {
  const CommandRun run = analyze(
      {testing::test_data(kKineto), "--et", testing::test_data(kEt), "--json", "--no-engine"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err.find("not collected together"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto& join = doc["hta"]["execution_trace"];
  EXPECT_EQ(join["collected_together"], true);
  EXPECT_EQ(join["operator_calls_with_id"], 10);
  EXPECT_EQ(join["operator_calls_joined"], 10);
  std::map<std::string, nlohmann::json> ops;
  for (const auto& op : doc["hta"]["operator_attribution"]["operators"])
    ops[op["name"].get<std::string>()] = op;
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_EQ(ops["aten::add"]["et_nodes"], nlohmann::json::parse("[36, 58]"));
  EXPECT_EQ(ops["aten::add"]["input_shapes"], nlohmann::json::parse("[[[256,256],[256,256],[]]]"));
  EXPECT_EQ(ops["aten::mul"]["et_nodes"], nlohmann::json::parse("[26, 49]"));
  EXPECT_EQ(ops["aten::mul"]["input_shapes"], nlohmann::json::parse("[[[10485760],[]]]"));
  EXPECT_EQ(ops["aten::rand"]["et_nodes"], nlohmann::json::parse("[4, 9]"));

  const CommandRun text =
      analyze({testing::test_data(kKineto), "--et", testing::test_data(kEt), "--no-engine"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("10 of 10 top-level operator calls joined"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("[[256,256],[256,256],[]]"), std::string::npos) << text.out;
}

// An ET from another run: its rf_ids lie outside the trace's External ids.
TEST(ExecutionTrace, SaysWhenTheTwoWereNotCollectedTogether) {
  const CommandRun run = analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
                                  "--et", testing::test_data(kEt), "--json", "--no-engine"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("were not collected together"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["hta"]["execution_trace"]["collected_together"], false);
  EXPECT_EQ(doc["hta"]["execution_trace"]["operator_calls_joined"], 0);
  for (const auto& op : doc["hta"]["operator_attribution"]["operators"])
    EXPECT_TRUE(op["et_nodes"].empty());
}

std::map<std::int64_t, nlohmann::json> joins_by_rank(const nlohmann::json& doc) {
  std::map<std::int64_t, nlohmann::json> out;
  for (const auto& j : doc["hta"]["execution_traces"])
    out[j["rank"].get<std::int64_t>()] = j;
  return out;
}

// Two ranks, each with its own ET: named by rank (N=FILE), or found by the
// process the ET and the rank's host operators ran in.
TEST(ExecutionTrace, JoinsSeveralEtsToTheirRanks) {
  testing::TempDir dir;
  const MovedPair zero = move_pair(dir, 0, 1000);
  const MovedPair one = move_pair(dir, 1, 1001);
  for (const bool by_pid : {false, true}) {
    SCOPED_TRACE(by_pid ? "by pid" : "by N=FILE");
    // Given in the other order than the ranks, so that the first one is not
    // simply taken.
    const CommandRun run =
        analyze({zero.kineto, one.kineto, "--et", by_pid ? one.et : "1=" + one.et, "--et",
                 by_pid ? zero.et : "0=" + zero.et, "--json", "--no-engine"});
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.err.find("not collected together"), std::string::npos) << run.err;
    const auto doc = nlohmann::json::parse(run.out);
    const auto joins = joins_by_rank(doc);
    ASSERT_EQ(joins.size(), 2u);
    EXPECT_EQ(joins.at(0).at("file"), zero.et);
    EXPECT_EQ(joins.at(1).at("file"), one.et);
    for (const auto& [rank, join] : joins) {
      EXPECT_EQ(join["collected_together"], true) << rank;
      EXPECT_EQ(join["operator_calls_joined"], 10) << rank;
    }
    std::map<std::int64_t, nlohmann::json> add;
    for (const auto& op : doc["hta"]["operator_attribution"]["operators"]) {
      if (op["name"] == "aten::add") add[op["rank"].get<std::int64_t>()] = op;
    }
    ASSERT_EQ(add.size(), 2u);
    EXPECT_EQ(add[0]["et_nodes"], nlohmann::json::parse("[36, 58]"));
    EXPECT_EQ(add[1]["et_nodes"], nlohmann::json::parse("[36, 58]"));
  }

  const CommandRun text = analyze(
      {zero.kineto, one.kineto, "--et", "1=" + one.et, "--et", "0=" + zero.et, "--no-engine"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("on rank 0: 10 of 10 top-level operator calls joined"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("on rank 1: 10 of 10 top-level operator calls joined"), std::string::npos)
      << text.out;

  // An ET given to the wrong rank is joined there, and said not to fit: the
  // ids are the same, so only the pid tells them apart, which N= overrides.
  const CommandRun wrong =
      analyze({zero.kineto, testing::test_data("kineto/two-rank/sampled_rank-1.json.gz"), "--et",
               "1=" + zero.et, "--json", "--no-engine"});
  ASSERT_EQ(wrong.code, 0) << wrong.err;
  EXPECT_NE(wrong.err.find("rank 1 were not collected together"), std::string::npos) << wrong.err;
}

TEST(ExecutionTrace, SeveralEtsUsageErrors) {
  testing::TempDir dir;
  const MovedPair zero = move_pair(dir, 0, 1000);
  const MovedPair one = move_pair(dir, 1, 1001);
  const MovedPair stray = move_pair(dir, 2, 1002);
  auto run = [](std::vector<std::string> words) {
    words.push_back("--no-engine");
    return analyze(words);
  };
  // Two ETs for one rank.
  CommandRun r = run({zero.kineto, one.kineto, "--et", "0=" + zero.et, "--et", zero.et});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("rank 0 already has an Execution Trace"), std::string::npos) << r.err;
  // An ET whose process ran no rank, among several: no guess.
  r = run({zero.kineto, one.kineto, "--et", zero.et, "--et", stray.et});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no Kineto rank ran in its pid 1002"), std::string::npos) << r.err;
  // A rank with no Kineto trace.
  EXPECT_EQ(run({zero.kineto, one.kineto, "--et", "5=" + zero.et}).code, 2);
  // --et-rank names the rank of one --et only.
  EXPECT_EQ(run({zero.kineto, one.kineto, "--et", zero.et, "--et", one.et, "--et-rank", "0"}).code,
            2);
}

// A node field of another type than the observer writes ("id": "x") threw
// from nlohmann's value() and aborted `analyze --et`; it is left out now, as a
// missing field is. 100 000 nested arrays in input_shapes overflowed the
// stack in dump(); text nested over 256 deep is refused.
TEST(ExecutionTrace, MistypedFieldsAreLeftOutAndDeepNestingIsRefused) {
  ExecutionTrace et;
  ASSERT_EQ(parse_execution_trace(
                R"({"pid": "7", "nodes": [{"rf_id": 5, "id": "x", "name": 3, "input_shapes": [[2]]},
                                          {"rf_id": 6, "id": 9, "name": "aten::mm"}]})",
                "et.json", et),
            "");
  EXPECT_EQ(et.pid, -1);
  EXPECT_EQ(et.nodes, 2u);
  ASSERT_EQ(et.by_rf_id.count(5), 1u);
  EXPECT_EQ(et.by_rf_id.at(5).id, -1);
  EXPECT_EQ(et.by_rf_id.at(5).name, "");
  EXPECT_EQ(et.by_rf_id.at(5).input_shapes, "[[2]]");
  EXPECT_EQ(et.by_rf_id.at(6).id, 9);
  EXPECT_EQ(et.by_rf_id.at(6).name, "aten::mm");

  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  ExecutionTrace refused;
  EXPECT_EQ(parse_execution_trace(R"({"nodes": [{"rf_id": 1, "input_shapes": )" + deep + "}]}",
                                  "deep.json", refused),
            "deep.json: arrays and objects nested more than 256 deep (not an Execution Trace)");
  // Brackets inside strings, escaped quotes included, do not count.
  ExecutionTrace quoted;
  EXPECT_EQ(parse_execution_trace(
                R"({"nodes": [{"rf_id": 1, "name": "\")" + std::string(300, '[') + R"("}]})",
                "quoted.json", quoted),
            "");
  EXPECT_EQ(quoted.by_rf_id.at(1).name, "\"" + std::string(300, '['));
}

TEST(ExecutionTrace, ParsesRankPrefixes) {
  EXPECT_EQ(parse_et_argument("3=et.json").rank, 3);
  EXPECT_EQ(parse_et_argument("3=et.json").file, "et.json");
  EXPECT_FALSE(parse_et_argument("et.json").rank);
  EXPECT_FALSE(parse_et_argument("a=b.json").rank);
  EXPECT_EQ(parse_et_argument("a=b.json").file, "a=b.json");
  EXPECT_FALSE(parse_et_argument("=b.json").rank);
}

TEST(ExecutionTrace, UsageErrors) {
  EXPECT_EQ(analyze({testing::test_data(kKineto), "--et", "/no/such/et.json"}).code, 1);
  EXPECT_EQ(
      analyze({testing::test_data(kKineto), "--et", testing::test_data(kEt), "--et-rank", "3"})
          .code,
      2);
  EXPECT_EQ(analyze({testing::test_data("dftracer-dlio/trace-0-of-8.pfw.gz"), "--et",
                     testing::test_data(kEt)})
                .code,
            2);
}

}  // namespace
}  // namespace stallwatch::collector
