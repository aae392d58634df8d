// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hta_breakdown.h"

namespace stallwatch::collector {

// One operator node of a PyTorch Execution Trace (the JSON written by
// torch.profiler.ExecutionTraceObserver, ExecutionGraphObserver in PyTorch
// 1.13): its node id, record-function id and what it was called with.
// Shapes and types are kept as the trace's compact JSON text.
struct EtNode {
  std::int64_t id = 0;
  std::int64_t rf_id = -1;
  std::string name;
  std::string input_shapes;  // e.g. [[256,256],[256,256],[]]
  std::string input_types;   // e.g. ["Tensor(float)","Tensor(float)","Int"]
};

// The nodes of one Execution Trace that carry a record-function id, by that
// id, and the id range of its operators (the observer's own thread/process
// root nodes left out, as HTA leaves them out).
struct ExecutionTrace {
  std::string file;
  std::int64_t pid = -1;
  std::int64_t min_rf_id = -1;
  std::int64_t max_rf_id = -1;
  std::size_t nodes = 0;  // every node in the file
  std::unordered_map<std::int64_t, EtNode> by_rf_id;
};

// Reads `path` (plain or gzip JSON); "" or why it could not.
std::string read_execution_trace(const std::string& path, ExecutionTrace& out);
// The same from the file's text; `name` names it in the error.
std::string parse_execution_trace(std::string_view text, const std::string& name,
                                  ExecutionTrace& out);

// How an Execution Trace joined one Kineto rank, HTA's way: Kineto operator
// events (cat cpu_op or user_annotation) carry the record-function id as
// args["External id"]; the two were collected together when the Kineto ids'
// range holds every ET operator's rf_id. Otherwise nothing is joined (HTA
// then refuses too), and `overlap` says so.
struct EtJoin {
  std::string file;
  std::int64_t rank = 0;
  bool overlap = false;
  std::int64_t et_min_rf_id = -1;
  std::int64_t et_max_rf_id = -1;
  std::int64_t kineto_min_id = -1;  // -1: the rank has no External id at all
  std::int64_t kineto_max_id = -1;
  std::size_t et_nodes = 0;
  std::uint64_t kineto_operators = 0;  // Kineto operator events with an External id
  std::uint64_t joined = 0;            // of those, the ones that found their ET node
};

// Joins `et` to rank `rank` of `hta`: fills each of that rank's operator
// rows' et_nodes, input_shapes and input_types from the ET nodes whose rf_id
// equals a call's External id, when the two overlap (see EtJoin).
EtJoin join_execution_trace(const ExecutionTrace& et, std::int64_t rank, HtaBreakdown& hta);

// One --et argument: "FILE" or "N=FILE" (N a rank, decimal digits only, so
// a file name with '=' elsewhere stays a file name).
struct EtArgument {
  std::optional<std::int64_t> rank;
  std::string file;
};
EtArgument parse_et_argument(const std::string& argument);

// The Kineto rank each of `traces` belongs to: `given[i]` when set, else the
// one rank whose host operators ran in the ET's process (ET "pid" equals the
// pid of the Kineto trace's cpu_op events: the observer and the profiler run
// in the same process), else, for a single ET, the first rank. Fills
// `problem` (and returns nothing useful) when a rank is unknown, an ET
// matches no rank or several, or two ETs claim the same rank.
std::vector<std::int64_t> et_ranks(const std::vector<ExecutionTrace>& traces,
                                   const std::vector<std::optional<std::int64_t>>& given,
                                   const HtaBreakdown& hta, std::string& problem);

}  // namespace stallwatch::collector
