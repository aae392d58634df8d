// SPDX-License-Identifier: MIT
#include "gpu_counters_json.h"

#include <algorithm>

namespace stallwatch::collector {

void write_gpu_counters(JsonWriter& w, const RankSnapshot& rank,
                        const std::vector<std::string_view>& window_names) {
  constexpr double kNanosPerSecond = 1e9;
  w.begin_array();
  for (const GpuDeviceCounters& d : rank.gpu_counters.devices) {
    const bool sampled = std::any_of(d.counters.begin(), d.counters.end(),
                                     [](const GpuCounterReading& r) { return r.sampled(); });
    const std::int64_t sampled_ns = d.latest_ns();
    w.begin_object();
    w.key("device").integer(d.device);
    if (sampled) {
      w.key("sampled_ns").integer(sampled_ns);
      w.key("age_seconds")
          .number(static_cast<double>(std::max<std::int64_t>(rank.watermark_ns - sampled_ns, 0)) /
                  kNanosPerSecond);
    } else {  // a device whose every reading was NaN (a node's report may say so)
      w.key("sampled_ns").null();
      w.key("age_seconds").null();
    }
    for (std::size_t c = 0; c < kGpuCounterCount; ++c) {
      const GpuCounterReading& r = d.counters[c];
      w.key(to_string(static_cast<GpuCounter>(c))).begin_object();
      w.key("latest").number(r.latest);
      w.key("mean").begin_object();
      for (std::size_t i = 0; i < window_names.size() && i < r.means.size(); ++i)
        w.key(window_names[i]).number(r.means[i]);
      w.end_object();
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
}

}  // namespace stallwatch::collector
