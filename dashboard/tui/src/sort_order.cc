// SPDX-License-Identifier: MIT
#include "sort_order.h"

#include <algorithm>
#include <optional>

#include "catalog/metric_table.h"
#include "catalog/vocabulary.h"

namespace stallwatch::tui {
namespace {

using catalog::Metric;

// The value a rank is sorted by; smaller sorts first. nullopt sorts last.
std::optional<double> sort_value(const RankRow& r, SortKey key, const std::string& window) {
  const Metrics* m = r.window(window);
  switch (key) {
    case SortKey::kRank:
      return r.rank;
    case SortKey::kDataStall:
      if (m == nullptr || !m->get(Metric::kDataStallRatio)) return std::nullopt;
      return -*m->get(Metric::kDataStallRatio);
    case SortKey::kDeviceIdle:
      if (m == nullptr || !m->get(Metric::kDeviceIdleRatio)) return std::nullopt;
      return -*m->get(Metric::kDeviceIdleRatio);
    case SortKey::kSteps:
      if (m == nullptr) return std::nullopt;
      return m->get(Metric::kStepsPerSecond);
    case SortKey::kVerdict:
      return verdict_rank(m != nullptr && !m->verdict.empty() ? m->verdict : r.verdict);
  }
  return std::nullopt;
}

}  // namespace

std::string_view sort_label(SortKey key) {
  switch (key) {
    case SortKey::kRank:
      return "rank";
    case SortKey::kDataStall:
      return "data stall ↓";
    case SortKey::kDeviceIdle:
      return "device idle ↓";
    case SortKey::kSteps:
      return "steps/s ↑";
    case SortKey::kVerdict:
      return "verdict";
  }
  return "rank";
}

SortKey next_sort(SortKey key) {
  switch (key) {
    case SortKey::kRank:
      return SortKey::kDataStall;
    case SortKey::kDataStall:
      return SortKey::kDeviceIdle;
    case SortKey::kDeviceIdle:
      return SortKey::kSteps;
    case SortKey::kSteps:
      return SortKey::kVerdict;
    case SortKey::kVerdict:
      return SortKey::kRank;
  }
  return SortKey::kRank;
}

int verdict_rank(std::string_view verdict) {
  const auto* term = catalog::find_term(catalog::kVerdicts, verdict);
  return static_cast<int>(term == nullptr
                              ? catalog::kVerdicts.size()
                              : static_cast<std::size_t>(term - catalog::kVerdicts.data()));
}

std::vector<const RankRow*> sorted_ranks(const std::vector<RankRow>& ranks, SortKey key,
                                         const std::string& window) {
  struct Keyed {
    std::optional<double> value;
    const RankRow* row;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(ranks.size());
  for (const RankRow& r : ranks)
    keyed.push_back({sort_value(r, key, window), &r});
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.value.has_value() != b.value.has_value()) return a.value.has_value();
    if (a.value && *a.value != *b.value) return *a.value < *b.value;
    return a.row->rank < b.row->rank;
  });
  std::vector<const RankRow*> out;
  out.reserve(keyed.size());
  for (const Keyed& k : keyed)
    out.push_back(k.row);
  return out;
}

}  // namespace stallwatch::tui
