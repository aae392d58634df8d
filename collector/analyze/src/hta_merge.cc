// SPDX-License-Identifier: MIT
#include "hta_merge.h"

#include <algorithm>
#include <limits>

namespace stallwatch::collector {

std::vector<HtaSpan> hta_merge(std::vector<HtaSpan> rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const HtaSpan& a, const HtaSpan& b) { return a.ts < b.ts; });
  std::vector<HtaSpan> groups;
  std::int64_t max_end = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i].ts > max_end) {
      groups.push_back(rows[i]);
    } else {
      groups.back().end = std::max(groups.back().end, rows[i].end);
    }
    max_end = std::max(max_end, rows[i].end);
  }
  return groups;
}

std::int64_t hta_merged_time(const std::vector<HtaSpan>& groups) {
  std::int64_t total = 0;
  for (const HtaSpan& g : groups)
    total += g.end - g.ts;
  return total;
}

}  // namespace stallwatch::collector
