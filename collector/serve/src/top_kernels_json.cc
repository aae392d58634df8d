// SPDX-License-Identifier: MIT
#include "top_kernels_json.h"

#include <algorithm>

namespace stallwatch::collector {
namespace {

void write_kernel(JsonWriter& w, const KernelEntry& k, bool with_name) {
  w.begin_object();
  if (with_name) w.key("name").string(k.name);
  w.key("device_seconds").number(static_cast<double>(k.device_ns) / 1e9);
  w.key("count").integer(k.count);
  w.end_object();
}

}  // namespace

void write_top_kernels(JsonWriter& w, const RankSnapshot& rank,
                       const std::vector<std::string_view>& window_names) {
  w.begin_object();
  // Ranks without CUPTI records have none: their rows stay small.
  const bool any =
      std::any_of(rank.top_kernels.begin(), rank.top_kernels.end(),
                  [](const TopKernels& t) { return !t.kernels.empty() || t.other.count > 0; });
  for (std::size_t i = 0; any && i < rank.top_kernels.size() && i < window_names.size(); ++i) {
    const TopKernels& top = rank.top_kernels[i];
    w.key(window_names[i]).begin_object();
    w.key("kernels").begin_array();
    for (const KernelEntry& k : top.kernels)
      write_kernel(w, k, true);
    w.end_array();
    w.key("other");
    write_kernel(w, top.other, false);
    w.end_object();
  }
  w.end_object();
}

}  // namespace stallwatch::collector
