// SPDX-License-Identifier: MIT
#include "hta_operator_overheads.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "hta_launch_stats.h"
#include "pandas_order.h"

namespace stallwatch::collector {

namespace {

HtaOverhead overhead_of(std::vector<double> values) {
  HtaOverhead o;
  o.count = values.size();
  if (values.empty()) return o;
  std::sort(values.begin(), values.end());
  o.mean_us = pairwise_sum(values) / static_cast<double>(values.size());
  o.p50_us = percentile_linear(values, 0.5);
  o.p95_us = percentile_linear(values, 0.95);
  return o;
}

bool is_data_loading(std::string_view name) {
  constexpr std::string_view kPrefix = "enumerate(DataLoader)";
  return name.substr(0, kPrefix.size()) == kPrefix;
}

double micros(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

struct Samples {
  std::uint64_t calls = 0;
  std::int64_t host_ns = 0;
  std::int64_t device_ns = 0;
  std::vector<double> t1, t2, t3, t5, start_delay;
  std::vector<std::int64_t> ids;
};

void attribute_rank(const HtaRankTrace& rank, HtaOperatorAttribution& out) {
  struct Device {
    std::int64_t busy_ns = 0;
    std::int64_t first_start = 0;
  };
  std::unordered_map<std::int64_t, Device> device_of;  // by correlation
  for (const HtaGpuRow& g : rank.gpu) {
    auto [it, added] = device_of.try_emplace(g.correlation, Device{0, g.ts});
    it->second.busy_ns += g.end - g.ts;
    if (!added) it->second.first_start = std::min(it->second.first_start, g.ts);
  }

  std::map<std::int64_t, std::vector<const HtaOperatorRow*>> ops_by_thread;
  for (const HtaOperatorRow& op : rank.operators)
    ops_by_thread[op.tid].push_back(&op);
  std::map<std::int64_t, std::vector<const HtaRuntimeRow*>> launches_by_thread;
  std::map<std::string, std::vector<double>> t4;
  for (const HtaRuntimeRow& r : rank.runtime) {
    if (!r.launch) continue;
    launches_by_thread[r.tid].push_back(&r);
    t4[rank.names[r.name]].push_back(micros(r.dur));
  }

  std::map<std::string, Samples> by_name;
  for (auto& [tid, ops] : ops_by_thread) {
    std::stable_sort(ops.begin(), ops.end(), [](const auto* a, const auto* b) {
      return a->ts != b->ts ? a->ts < b->ts : a->dur > b->dur;
    });
    std::vector<const HtaRuntimeRow*>& launches = launches_by_thread[tid];
    std::stable_sort(launches.begin(), launches.end(),
                     [](const auto* a, const auto* b) { return a->ts < b->ts; });
    std::size_t next_launch = 0;
    const HtaOperatorRow* previous = nullptr;
    for (const HtaOperatorRow* op : ops) {
      const std::int64_t end = op->ts + op->dur;
      if (previous != nullptr && op->ts < previous->ts + previous->dur) continue;  // nested
      const std::string& name = rank.names[op->name];
      const bool loading = is_data_loading(name);
      Samples* s = loading ? nullptr : &by_name[name];
      if (s != nullptr) {
        ++s->calls;
        s->host_ns += op->dur;
        s->ids.push_back(op->external_id);
        if (previous != nullptr) s->t1.push_back(micros(op->ts - (previous->ts + previous->dur)));
      }
      while (next_launch < launches.size() && launches[next_launch]->ts < op->ts)
        ++next_launch;
      const HtaRuntimeRow* last = nullptr;
      std::optional<std::int64_t> first_device_start;
      for (; next_launch < launches.size() && launches[next_launch]->ts < end; ++next_launch) {
        const HtaRuntimeRow* launch = launches[next_launch];
        if (s != nullptr) {
          if (last == nullptr) {
            s->t2.push_back(micros(launch->ts - op->ts));
          } else {
            s->t5.push_back(micros(launch->ts - (last->ts + last->dur)));
          }
          auto it = device_of.find(launch->correlation);
          if (it != device_of.end()) {
            s->device_ns += it->second.busy_ns;
            first_device_start = std::min(first_device_start.value_or(it->second.first_start),
                                          it->second.first_start);
          }
        }
        last = launch;
      }
      if (s != nullptr && last != nullptr) s->t3.push_back(micros(end - (last->ts + last->dur)));
      if (s != nullptr && first_device_start)
        s->start_delay.push_back(micros(*first_device_start - op->ts));
      previous = op;
    }
  }

  std::vector<HtaOperatorStats> rows;
  for (auto& [name, s] : by_name) {
    HtaOperatorStats row;
    row.rank = rank.rank;
    row.name = name;
    row.calls = s.calls;
    row.host_runtime_us = s.host_ns / 1000;
    row.device_runtime_us = s.device_ns / 1000;
    row.t1 = overhead_of(std::move(s.t1));
    row.t2 = overhead_of(std::move(s.t2));
    row.t3 = overhead_of(std::move(s.t3));
    row.t5 = overhead_of(std::move(s.t5));
    row.device_start_delay = overhead_of(std::move(s.start_delay));
    row.call_ids = std::move(s.ids);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.host_runtime_us > b.host_runtime_us;
  });
  out.operators.insert(out.operators.end(), rows.begin(), rows.end());
  for (auto& [name, values] : t4)
    out.launches.push_back({rank.rank, name, overhead_of(std::move(values))});
}

}  // namespace

HtaOperatorAttribution hta_operator_attribution(const HtaTrace& trace) {
  HtaOperatorAttribution out;
  for (const HtaRankTrace& rank : trace.ranks)
    attribute_rank(rank, out);
  return out;
}

}  // namespace stallwatch::collector
