// SPDX-License-Identifier: MIT
#include "report_charts.h"

#include "chart_library.h"

namespace stallwatch::collector {

namespace {

// Draws every chart of #chart-data. uPlot has no stacked bars of its own:
// series k is drawn as bars up to the sum of series 0..k, the tallest sum
// first so that each shorter one paints over it. The x axis is the bar
// index, labelled with the bar's label; the legend names each series.
constexpr const char* kDrawScript = R"js(
(function () {
  var colors = ['#4e79a7', '#f28e2b', '#bab0ac', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1'];
  var specs = JSON.parse(document.getElementById('chart-data').textContent);
  window.stallwatchCharts = {};
  specs.forEach(function (c) {
    var el = document.getElementById(c.id);
    if (!el || c.bars.length === 0) return;
    var xs = c.bars.map(function (_, i) { return i; });
    var sums = c.series.map(function () { return []; });
    var top = 0;
    c.bars.forEach(function (b) {
      var acc = 0;
      c.series.forEach(function (_, k) {
        acc += Math.max(b.values[k] || 0, 0);
        sums[k].push(acc);
      });
      top = Math.max(top, acc);
    });
    var full = c.full > 0 ? c.full : (top > 0 ? top * 1.05 : 1);
    var bars = uPlot.paths.bars({ size: [0.7, 80] });
    var series = [{ label: 'bar' }];
    var data = [xs];
    for (var k = c.series.length - 1; k >= 0; --k) {
      var color = colors[k % colors.length];
      series.push({ label: c.series[k] + ' (' + c.unit + ')', fill: color, stroke: color, width: 0,
        paths: bars, points: { show: false } });
      data.push(sums[k]);
    }
    var longest = c.bars.reduce(function (m, b) { return Math.max(m, b.label.length); }, 0);
    var plot = new uPlot({
      width: Math.min(1100, Math.max(420, 70 * c.bars.length + 140)),
      height: 300 + Math.min(longest, 40) * 4,
      scales: {
        x: { time: false, range: function () { return [-0.5, c.bars.length - 0.5]; } },
        y: { range: function () { return [0, full]; } }
      },
      axes: [
        { splits: function () { return xs; }, rotate: -35, size: 30 + Math.min(longest, 40) * 5,
          values: function (u, splits) {
            return splits.map(function (i) { return c.bars[i] ? c.bars[i].label : ''; });
          } },
        { label: c.unit, size: 70 }
      ],
      series: series
    }, data, el);
    window.stallwatchCharts[c.id] = { plot: plot, spec: c };
  });
})();
)js";

}  // namespace

void write_chart_style(std::ostream& out) {
  out << "<style>" << chart_library_css() << "</style>\n";
}

void write_chart_placeholder(std::ostream& out, const HtmlChart& chart) {
  out << "<div id=\"" << html_escape(chart.id) << "\" class=\"chart\"></div>\n";
}

void write_chart_scripts(std::ostream& out, const std::vector<HtmlChart>& charts) {
  out << "<script type=\"application/json\" id=\"chart-data\">" << chart_data_json(charts)
      << "</script>\n<script>/*\n"
      << chart_library_license() << "*/\n"
      << chart_library_js() << "</script>\n<script>" << kDrawScript << "</script>\n";
}

}  // namespace stallwatch::collector
