// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as a PyTorch Execution Trace given to
// `stallwatch analyze --et` (parse_execution_trace), then joined to a rank
// whose operators carry record-function ids around the trace's. Nothing may
// crash, leak, throw or report undefined behaviour; on top, a trace that
// parses holds no more nodes by id than it counted.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "execution_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stallwatch::collector;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ExecutionTrace et;
  if (!parse_execution_trace(text, "fuzz.json", et).empty()) return 0;
  if (et.by_rf_id.size() > et.nodes) std::abort();
  HtaBreakdown hta;
  HtaRankBreakdown& rank = hta.ranks.emplace_back();
  rank.rank = 0;
  rank.min_external_id = 0;
  rank.max_external_id = 1'000'000;
  HtaOperatorStats& op = hta.operators.operators.emplace_back();
  op.rank = 0;
  op.call_ids = {-1, 0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89};
  const EtJoin join = join_execution_trace(et, 0, hta);
  if (join.joined > join.kineto_operators) std::abort();
  return 0;
}
