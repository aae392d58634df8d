// SPDX-License-Identifier: MIT
#pragma once

#include <ostream>
#include <vector>

#include "html_writer.h"

namespace stallwatch::collector {

// The HTML report's charts, drawn in the page by the web dashboard's chart
// library (uPlot, inlined; see chart_library.h). The report writes an empty
// <div class="chart"> per chart where it belongs and, once, at the end of
// the page, the library, the charts' figures as JSON and the script that
// draws every chart as stacked bars into its <div>. Each drawn chart is left
// in `window.stallwatchCharts[id]` ({plot, spec}) for tests and the console.

// The library's style sheet, for the page's <head>.
void write_chart_style(std::ostream& out);
// <div id="`chart.id`" class="chart"></div>
void write_chart_placeholder(std::ostream& out, const HtmlChart& chart);
// The library, the figures and the drawing script, as inline <script>s.
void write_chart_scripts(std::ostream& out, const std::vector<HtmlChart>& charts);

}  // namespace stallwatch::collector
