// SPDX-License-Identifier: MIT
#include "execution_trace.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "analyze_run.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

const std::string kEt = "kineto/execution-trace/benchmark_simple_add_et.json.gz";
const std::string kKineto = "kineto/execution-trace/benchmark_simple_add_trace.json.gz";

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
