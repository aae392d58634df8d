// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "dfanalyzer_summary.h"
#include "engine/snapshot.h"
#include "execution_trace.h"
#include "hta_breakdown.h"
#include "traces/read_stats.h"

namespace stallwatch::collector {

// Everything `stallwatch analyze` found, ready to print.
struct AnalyzeReport {
  std::vector<std::string> files;
  std::vector<ReadStats> reads;
  std::string mapping;                     // preset name (+ rules file)
  std::optional<DfJobSummary> dftracer;    // when dftracer files were given
  std::optional<HtaBreakdown> hta;         // when Kineto files were given
  std::int64_t batch_size = 0;             // samples per rank and step; 0: unknown
  std::vector<EtJoin> et;                  // one per Execution Trace joined, one rank each
  std::shared_ptr<const Snapshot> engine;  // stallwatch's own view
};

// Aligned tables for a human.
void write_report_text(const AnalyzeReport& report, std::ostream& out);
// One JSON document; seconds as numbers, HTA times in µs (HTA's unit).
void write_report_json(const AnalyzeReport& report, std::ostream& out);
// One self-contained HTML page with the text report's sections (tables,
// charts, sortable operator, kernel and top-files tables); every trace-provided string
// is escaped and the page loads nothing.
void write_report_html(const AnalyzeReport& report, std::ostream& out);

}  // namespace stallwatch::collector
