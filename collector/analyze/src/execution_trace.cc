// SPDX-License-Identifier: MIT
#include "execution_trace.h"

#include <zlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

namespace stallwatch::collector {

namespace {

bool is_observer_root(const std::string& name) {
  return name.find("execution_trace|thread") != std::string::npos ||
         name.find("execution_trace|process") != std::string::npos ||
         name.find("execution_graph|thread") != std::string::npos ||
         name.find("execution_graph|process") != std::string::npos;
}

// Arrays and objects nested deeper than this are refused: nlohmann's dump()
// (of a node's input_shapes) recurses once per level, and 100 000 levels
// overflow the stack. The observer writes a handful.
constexpr int kMaxEtNesting = 256;

// Whether `text` nests arrays and objects (outside strings) deeper than
// `limit`. Unbalanced text is left to the JSON parser to refuse.
bool nested_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string read_all(const std::string& path, std::string& text) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr) return "cannot open " + path;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(in, buf, sizeof buf)) > 0)
    text.append(buf, static_cast<std::size_t>(n));
  const bool failed = n < 0;
  gzclose(in);
  return failed ? "cannot read " + path : "";
}

}  // namespace

std::string read_execution_trace(const std::string& path, ExecutionTrace& out) {
  std::string text;
  if (auto problem = read_all(path, text); !problem.empty()) return problem;
  return parse_execution_trace(text, path, out);
}

std::string parse_execution_trace(std::string_view text, const std::string& name,
                                  ExecutionTrace& out) {
  if (nested_deeper_than(text, kMaxEtNesting)) {
    return name + ": arrays and objects nested more than " + std::to_string(kMaxEtNesting) +
           " deep (not an Execution Trace)";
  }
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("nodes") ||
      !doc["nodes"].is_array()) {
    return name + ": not an Execution Trace (a JSON object with \"nodes\")";
  }
  out.file = name;
  if (doc.contains("pid") && doc["pid"].is_number_integer())
    out.pid = doc["pid"].get<std::int64_t>();
  // A field of another type than the observer writes is left out, as a
  // missing one is (reading it as that type would throw).
  auto integer = [](const nlohmann::json& node, const char* key, std::int64_t fallback) {
    const auto it = node.find(key);
    return it != node.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
  };
  for (const auto& node : doc["nodes"]) {
    ++out.nodes;
    if (!node.is_object() || !node.contains("rf_id") || !node["rf_id"].is_number_integer())
      continue;
    EtNode n;
    n.rf_id = node["rf_id"].get<std::int64_t>();
    n.id = integer(node, "id", -1);
    if (const auto it = node.find("name"); it != node.end() && it->is_string())
      n.name = it->get<std::string>();
    if (node.contains("input_shapes")) n.input_shapes = node["input_shapes"].dump();
    if (node.contains("input_types")) n.input_types = node["input_types"].dump();
    if (!is_observer_root(n.name)) {
      out.min_rf_id = out.min_rf_id < 0 ? n.rf_id : std::min(out.min_rf_id, n.rf_id);
      out.max_rf_id = std::max(out.max_rf_id, n.rf_id);
    }
    out.by_rf_id.emplace(n.rf_id, std::move(n));
  }
  return "";
}

EtJoin join_execution_trace(const ExecutionTrace& et, std::int64_t rank, HtaBreakdown& hta) {
  EtJoin join;
  join.file = et.file;
  join.rank = rank;
  join.et_min_rf_id = et.min_rf_id;
  join.et_max_rf_id = et.max_rf_id;
  join.et_nodes = et.nodes;
  for (const HtaRankBreakdown& r : hta.ranks) {
    if (r.rank != rank) continue;
    join.kineto_min_id = r.min_external_id;
    join.kineto_max_id = r.max_external_id;
  }
  join.overlap = join.kineto_min_id >= 0 && et.min_rf_id >= 0 &&
                 join.kineto_min_id <= et.min_rf_id && join.kineto_max_id >= et.max_rf_id;
  auto add_once = [](std::vector<std::string>& list, const std::string& value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
  };
  for (HtaOperatorStats& op : hta.operators.operators) {
    if (op.rank != rank) continue;
    for (const std::int64_t id : op.call_ids) {
      if (id < 0) continue;
      ++join.kineto_operators;
      if (!join.overlap) continue;
      auto it = et.by_rf_id.find(id);
      if (it == et.by_rf_id.end()) continue;
      ++join.joined;
      op.et_nodes.push_back(it->second.id);
      add_once(op.input_shapes, it->second.input_shapes);
      add_once(op.input_types, it->second.input_types);
    }
  }
  return join;
}

EtArgument parse_et_argument(const std::string& argument) {
  EtArgument out{std::nullopt, argument};
  const auto eq = argument.find('=');
  if (eq == std::string::npos || eq == 0 || eq > 9) return out;
  for (std::size_t i = 0; i < eq; ++i) {
    if (argument[i] < '0' || argument[i] > '9') return out;
  }
  out.rank = std::stoll(argument.substr(0, eq));
  out.file = argument.substr(eq + 1);
  return out;
}

std::vector<std::int64_t> et_ranks(const std::vector<ExecutionTrace>& traces,
                                   const std::vector<std::optional<std::int64_t>>& given,
                                   const HtaBreakdown& hta, std::string& problem) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const ExecutionTrace& et = traces[i];
    std::optional<std::int64_t> rank = given[i];
    if (rank) {
      bool known = false;
      for (const HtaRankBreakdown& r : hta.ranks)
        known |= r.rank == *rank;
      if (!known) {
        problem = et.file + ": rank " + std::to_string(*rank) + ": no Kineto trace of that rank";
        return {};
      }
    } else {
      std::size_t matches = 0;
      for (const HtaRankBreakdown& r : hta.ranks) {
        if (et.pid < 0 || r.host_pid != et.pid) continue;
        ++matches;
        rank = r.rank;
      }
      if (matches > 1) {
        problem = et.file + ": several Kineto ranks ran in its pid " + std::to_string(et.pid) +
                  "; write --et N=FILE";
        return {};
      }
      if (matches == 0 && traces.size() == 1) rank = hta.ranks.front().rank;
      if (!rank) {
        problem = et.file + ": no Kineto rank ran in its pid " + std::to_string(et.pid) +
                  "; write --et N=FILE";
        return {};
      }
    }
    if (std::find(out.begin(), out.end(), *rank) != out.end()) {
      problem = et.file + ": rank " + std::to_string(*rank) + " already has an Execution Trace";
      return {};
    }
    out.push_back(*rank);
  }
  return out;
}

}  // namespace stallwatch::collector
