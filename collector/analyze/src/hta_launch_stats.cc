// SPDX-License-Identifier: MIT
#include "hta_launch_stats.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "engine/launch_figures.h"

namespace stallwatch::collector {

namespace {

// HTA joins every host row whose correlation belongs to a launch with every
// device row of that correlation (an inner merge: key groups in the order
// the host rows first show them, each host row against each device row).
HtaLaunchStats stats_of(const HtaRankTrace& rank) {
  HtaLaunchStats out;
  out.rank = rank.rank;
  std::unordered_set<std::int64_t> launched;
  for (const HtaRuntimeRow& row : rank.runtime) {
    if (row.launch) launched.insert(row.correlation);
  }
  std::unordered_map<std::int64_t, std::vector<const HtaGpuRow*>> kernels;
  for (const HtaGpuRow& g : rank.gpu) {
    if (launched.count(g.correlation) != 0) kernels[g.correlation].push_back(&g);
  }
  std::vector<std::int64_t> key_order;
  std::unordered_map<std::int64_t, std::vector<const HtaRuntimeRow*>> calls;
  for (const HtaRuntimeRow& row : rank.runtime) {
    if (kernels.count(row.correlation) == 0) continue;
    auto& group = calls[row.correlation];
    if (group.empty()) key_order.push_back(row.correlation);
    group.push_back(&row);
  }
  std::vector<double> cpu, gpu, delay;
  for (std::int64_t key : key_order) {
    for (const HtaRuntimeRow* call : calls[key]) {
      for (const HtaGpuRow* kernel : kernels[key]) {
        const LaunchFigures f = launch_figures(call->ts, call->dur, kernel->ts, kernel->end);
        HtaLaunch launch;
        launch.correlation = key;
        launch.cpu_duration_us = f.call_us();
        launch.gpu_duration_us = f.work_us();
        launch.launch_delay_us = f.delay_us();
        out.launches.push_back(launch);
        cpu.push_back(static_cast<double>(launch.cpu_duration_us));
        gpu.push_back(static_cast<double>(launch.gpu_duration_us));
        delay.push_back(static_cast<double>(launch.launch_delay_us));
        out.short_kernels += f.short_kernel();
        out.long_launches += f.long_launch();
        out.late_starts += f.late_start();
      }
    }
  }
  out.cpu_duration = describe(std::move(cpu));
  out.gpu_duration = describe(std::move(gpu));
  out.launch_delay = describe(std::move(delay));
  return out;
}

}  // namespace

std::vector<HtaLaunchStats> hta_launch_stats(const HtaTrace& trace) {
  std::vector<HtaLaunchStats> out;
  for (const HtaRankTrace& rank : trace.ranks)
    out.push_back(stats_of(rank));
  return out;
}

}  // namespace stallwatch::collector
