// SPDX-License-Identifier: MIT
#include "hta_queue_length.h"

#include <map>
#include <unordered_map>

#include "hta_launch_stats.h"
#include "pandas_order.h"

// HTA's queue length (trace_counters.py), restated: the launches are the
// host rows named as launches whose correlation has a device row in the
// unfiltered trace; each takes the stream of the kept device rows of its
// correlation (once per such row). The launches, then the device rows whose
// correlation belongs to a launch, each in HTA's row order, are sorted by
// start with numpy's unstable quicksort; per stream, in that order, the
// running sum of +1 (launch) and -1 (device row) is the queue length.

namespace stallwatch::collector {

namespace {

struct Step {
  std::int64_t ts = 0;
  std::int64_t stream = 0;
  int delta = 0;
};

void add_rank(const HtaRankTrace& rank, std::vector<HtaQueueLength>& out) {
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> streams_of;
  for (const HtaGpuRow& g : rank.gpu)
    streams_of[g.correlation].push_back(g.stream);
  std::vector<Step> steps;
  std::unordered_map<std::int64_t, bool> launched;
  for (const HtaRuntimeRow& row : rank.runtime) {
    if (!row.has_kernel || !row.launch) continue;
    launched[row.correlation] = true;
    auto it = streams_of.find(row.correlation);
    if (it == streams_of.end()) continue;  // pandas drops a NaN stream group
    for (std::int64_t stream : it->second)
      steps.push_back({row.ts, stream, 1});
  }
  for (const HtaGpuRow& g : rank.gpu) {
    if (launched.count(g.correlation) != 0) steps.push_back({g.ts, g.stream, -1});
  }
  std::vector<std::int64_t> starts(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i)
    starts[i] = steps[i].ts;
  std::map<std::int64_t, std::vector<const Step*>> by_stream;
  for (std::uint32_t i : argsort_quick(std::span<const std::int64_t>(starts)))
    by_stream[steps[i].stream].push_back(&steps[i]);

  for (const auto& [stream, series] : by_stream) {
    HtaQueueLength q;
    q.rank = rank.rank;
    q.stream = stream;
    std::vector<double> lengths;
    lengths.reserve(series.size());
    std::int64_t length = 0;
    for (std::size_t k = 0; k < series.size(); ++k) {
      length += series[k]->delta;
      lengths.push_back(static_cast<double>(length));
      if (length >= HtaQueueLength::kMaxQueueLength && k + 1 < series.size())
        q.blocked_us += (series[k + 1]->ts - series[k]->ts) / 1000;
    }
    q.queue_length = describe(std::move(lengths));
    out.push_back(q);
  }
}

}  // namespace

std::vector<HtaQueueLength> hta_queue_lengths(const HtaTrace& trace) {
  std::vector<HtaQueueLength> out;
  for (const HtaRankTrace& rank : trace.ranks)
    add_rank(rank, out);
  return out;
}

}  // namespace stallwatch::collector
