// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as a node's `GET /api/v1/jobs/{job}/series`
// answer, taken by a head as TreeLink does: parse_series_json(), the answer
// refused unless it charts the head's step, keep_ranks() of the ranks the
// node owns, then merge_series() with the head's own series of the job (its
// clock 30 ms behind the node's). Nothing may crash, leak or report
// undefined behaviour; on top, a merged series has one time per point, one
// value per point for every rank, sorted ranks, and a mean and a max per
// point.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "tree/series_merge.h"

namespace {

using namespace stallwatch::collector;

constexpr std::int64_t kStepNs = 100'000'000;
constexpr std::int64_t kPoints = 50;

Series head_series() {
  Series s;
  s.job = "train";
  s.metric = "data_stall_ratio";
  s.step_ns = kStepNs;
  const std::int64_t end = 1'795'760'000'300'000'000;
  for (std::int64_t i = 9; i >= 0; --i)
    s.t_ns.push_back(end - i * kStepNs);
  s.ranks = {0, 3};
  s.values = {std::vector<double>(10, 0.5), std::vector<double>(10, 0.25)};
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  NodeSeries answer;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  if (!parse_series_json(json, answer).empty() || answer.series.step_ns != kStepNs) return 0;
  const std::vector<std::int32_t> owned = {1, 2, 3, 4, 5};
  keep_ranks(answer.series, owned);
  const Series local = head_series();
  const std::vector<SeriesPart> parts = {{&local, 0}, {&answer.series, 30'000'000}};
  const auto merged = merge_series(parts, kStepNs, kPoints);
  if (!merged) std::abort();  // the head's own part has points
  const Series& m = *merged;
  const auto points = static_cast<std::size_t>(kPoints);
  if (m.t_ns.size() != points || m.mean.size() != points || m.max.size() != points ||
      m.values.size() != m.ranks.size() || !std::is_sorted(m.ranks.begin(), m.ranks.end())) {
    std::abort();
  }
  for (const auto& values : m.values) {
    if (values.size() != points) std::abort();
  }
  return 0;
}
