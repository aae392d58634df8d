// SPDX-License-Identifier: MIT
#include "tree/series_merge.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "engine/series_summary.h"

namespace stallwatch::collector {
namespace {

constexpr double kNanosPerSecond = 1e9;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An array of numbers, null as NaN; false for anything else or a missing field.
bool read_values(simdjson::simdjson_result<simdjson::dom::element> e, std::vector<double>& out) {
  simdjson::dom::array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return false;
  out.clear();
  out.reserve(a.size());
  for (simdjson::dom::element v : a) {
    if (v.is_null()) {
      out.push_back(kNaN);
      continue;
    }
    double d = 0;
    if (v.get_double().get(d) != simdjson::SUCCESS) return false;
    out.push_back(d);
  }
  return true;
}

}  // namespace

std::int64_t round_to_step(std::int64_t offset_ns, std::int64_t step_ns) {
  const std::int64_t sign = offset_ns < 0 ? -1 : 1;
  return sign * ((sign * offset_ns + step_ns / 2) / step_ns) * step_ns;
}

std::string parse_series_json(std::string_view json, NodeSeries& out) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(json.data(), json.size()).get(doc); err != simdjson::SUCCESS) {
    return std::string("not JSON: ") + simdjson::error_message(err);
  }
  out = NodeSeries{};
  Series& s = out.series;
  std::string_view text;
  if (doc["job"].get_string().get(text) != simdjson::SUCCESS) return "no 'job'";
  s.job = std::string(text);
  if (doc["metric"].get_string().get(text) != simdjson::SUCCESS) return "no 'metric'";
  s.metric = std::string(text);
  double step = 0;
  if (doc["step_seconds"].get_double().get(step) != simdjson::SUCCESS || !(step > 0) ||
      step > 1e6) {
    return "no positive 'step_seconds'";
  }
  s.step_ns = std::llround(step * kNanosPerSecond);
  if (s.step_ns <= 0) return "no positive 'step_seconds'";
  std::vector<double> t;
  if (!read_values(doc["t"], t)) return "no array of times 't'";
  for (double v : t) {
    if (!std::isfinite(v) || std::abs(v) > 9e9) return "a time in 't' out of range";
    s.t_ns.push_back(round_to_step(std::llround(v * kNanosPerSecond), s.step_ns));
  }
  simdjson::dom::array ranks;
  if (doc["ranks"].get_array().get(ranks) != simdjson::SUCCESS) return "no array 'ranks'";
  for (simdjson::dom::element r : ranks) {
    std::int64_t rank = 0;
    if (r["rank"].get_int64().get(rank) != simdjson::SUCCESS || rank < 0 ||
        rank > std::numeric_limits<std::int32_t>::max()) {
      return "a rank without a valid 'rank'";
    }
    s.ranks.push_back(static_cast<std::int32_t>(rank));
    if (!read_values(r["values"], s.values.emplace_back()) || s.values.back().size() != t.size()) {
      return "rank " + std::to_string(rank) + " without one value per time";
    }
  }
  if (!read_values(doc["mean"], s.mean) || !read_values(doc["max"], s.max)) {
    return "no arrays 'mean' and 'max'";
  }
  // Absent from a collector that is not a head.
  simdjson::dom::array failed;
  if (doc["failed_nodes"].get_array().get(failed) == simdjson::SUCCESS) {
    for (simdjson::dom::element f : failed) {
      std::string_view node;
      std::string_view error;
      if (f["node"].get_string().get(node) != simdjson::SUCCESS ||
          f["error"].get_string().get(error) != simdjson::SUCCESS) {
        return "a 'failed_nodes' entry without 'node' and 'error'";
      }
      out.failed_nodes.emplace_back(std::string(node), std::string(error));
    }
  }
  return {};
}

void keep_ranks(Series& series, std::span<const std::int32_t> ranks) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < series.ranks.size(); ++i) {
    if (!std::binary_search(ranks.begin(), ranks.end(), series.ranks[i])) continue;
    if (kept != i) {  // a vector moved onto itself would be left empty
      series.ranks[kept] = series.ranks[i];
      if (i < series.values.size()) series.values[kept] = std::move(series.values[i]);
    }
    ++kept;
  }
  series.ranks.resize(kept);
  series.values.resize(std::min(series.values.size(), kept));
}

std::optional<Series> merge_series(std::span<const SeriesPart> parts, std::int64_t step_ns,
                                   std::int64_t points) {
  const Series* first = nullptr;
  std::int64_t t_end = std::numeric_limits<std::int64_t>::min();
  for (const SeriesPart& p : parts) {
    if (p.series == nullptr || p.series->t_ns.empty()) continue;
    if (first == nullptr) first = p.series;
    t_end = std::max(t_end, p.series->t_ns.back() - round_to_step(p.clock_offset_ns, step_ns));
  }
  if (first == nullptr) return std::nullopt;
  points = std::max<std::int64_t>(points, 1);

  Series s;
  s.job = first->job;
  s.metric = first->metric;
  s.window_ns = first->window_ns;
  s.step_ns = step_ns;
  for (std::int64_t i = 0; i < points; ++i)
    s.t_ns.push_back(t_end - (points - 1 - i) * step_ns);

  std::map<std::int32_t, std::vector<double>> by_rank;
  for (const SeriesPart& p : parts) {
    if (p.series == nullptr || p.series->t_ns.empty()) continue;
    const Series& in = *p.series;
    // Point i of the head is point i + shift of the part, on the same step.
    const std::int64_t offset = round_to_step(p.clock_offset_ns, step_ns);
    const std::int64_t shift = (s.t_ns.front() + offset - in.t_ns.front()) / step_ns;
    for (std::size_t r = 0; r < in.ranks.size() && r < in.values.size(); ++r) {
      auto [at, added] = by_rank.try_emplace(in.ranks[r]);
      if (!added) continue;
      std::vector<double>& out = at->second;
      out.assign(static_cast<std::size_t>(points), kNaN);
      const std::vector<double>& v = in.values[r];
      for (std::int64_t i = 0; i < points; ++i) {
        const std::int64_t j = i + shift;
        if (j >= 0 && j < static_cast<std::int64_t>(v.size()) &&
            in.t_ns[static_cast<std::size_t>(j)] == s.t_ns[static_cast<std::size_t>(i)] + offset) {
          out[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(j)];
        }
      }
    }
  }
  for (auto& [rank, values] : by_rank) {
    s.ranks.push_back(rank);
    s.values.push_back(std::move(values));
  }
  fill_mean_max(s);
  return s;
}

}  // namespace stallwatch::collector
