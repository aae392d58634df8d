// SPDX-License-Identifier: MIT
#include "prometheus_top_files.h"

#include <algorithm>
#include <string>

#include "serve/snapshot_json.h"

namespace stallwatch::collector {

void write_top_file_family(Exposition& e, const Snapshot* snap, const PrometheusConfig& config) {
  if (config.top_files == 0) return;
  constexpr std::string_view kName = "stallwatch_top_file_io_seconds";
  e.family(kName, "gauge",
           "Time inside captured POSIX and stdio calls on the file over the verdict window, "
           "each call counted whole where it ended: the rank's files with the most, one series "
           "each (prometheus.top_files per rank; the path changes as the top does).");
  if (snap == nullptr) return;
  const std::string window = label("window", window_name(snap->verdict_window_ns));
  std::string labels;
  for (const JobSnapshot& job : snap->jobs) {
    for (const RankSnapshot& rank : job.ranks) {
      const auto top =
          std::find_if(rank.top_files.begin(), rank.top_files.end(),
                       [&](const TopFiles& t) { return t.window_ns == snap->verdict_window_ns; });
      if (top == rank.top_files.end()) continue;
      const std::size_t n = std::min(config.top_files, top->files.size());
      for (std::size_t i = 0; i < n; ++i) {
        labels.clear();
        append_label(labels, "job_id", job.job);
        append_label(labels, "rank", std::to_string(rank.rank));
        labels.push_back(',');
        labels.append(window);
        append_label(labels, "path", top->files[i].path);
        e.sample(kName, labels, static_cast<double>(top->files[i].io_ns) / 1e9);
      }
    }
  }
}

}  // namespace stallwatch::collector
