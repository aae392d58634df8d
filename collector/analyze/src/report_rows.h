// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hta_breakdown.h"

namespace stallwatch::collector {

// The cells of one report table, before any layout: the text report prints
// them as aligned columns, the HTML report as an escaped <table>, so that the
// two always show the same figures.
struct ReportRows {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// HTA's temporal breakdown, one row per rank (dashes for a rank without
// device rows), µs and %.
ReportRows hta_temporal_rows(const HtaBreakdown& h);
// Step times per rank and QPS (`batch_size` 0: QPS unknown), with a job row
// when QPS is known.
ReportRows hta_steps_rows(const HtaBreakdown& h, std::int64_t batch_size);
// Idle time per rank and stream, µs.
ReportRows hta_idle_rows(const HtaBreakdown& h);
// Device time per kernel type over all ranks.
ReportRows hta_kernel_type_rows(const HtaBreakdown& h);
// CUDA kernel launch statistics per rank.
ReportRows hta_launch_rows(const HtaBreakdown& h);
// Queue length per rank and stream.
ReportRows hta_queue_rows(const HtaBreakdown& h);
// The launch calls' own time (T4) per rank and launch type.
ReportRows hta_launch_call_rows(const HtaBreakdown& h);

}  // namespace stallwatch::collector
