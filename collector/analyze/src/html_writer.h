// SPDX-License-Identifier: MIT
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace stallwatch::collector {

// `text` with &, <, >, " and ' replaced by entities: safe as element content
// and inside a quoted attribute.
std::string html_escape(std::string_view text);

// An HTML table written at once: a header row and data rows of text cells,
// every cell escaped. Cells after the first that read as numbers are
// right-aligned.
// `id`, when given, names the table for links, sorting and tests.
class HtmlTable {
 public:
  explicit HtmlTable(std::vector<std::string> header, std::string id = "");
  void row(std::vector<std::string> cells);
  // `sortable`: clicking a header sorts the rows by that column (the page's
  // inline script; see write_report_html).
  void write(std::ostream& out, bool sortable = false) const;

 private:
  std::string id_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// One bar of a stacked bar chart: a label and one value per series.
struct HtmlBar {
  std::string label;
  std::vector<double> values;
};

// A stacked bar chart the page draws with its chart library (see
// report_charts.h): one bar per entry, segments in series order, all bars on
// one scale (`full`, or the largest bar's total when 0). The page holds only
// an empty <div id="`id`" class="chart">; the figures travel as JSON.
struct HtmlChart {
  std::string id;
  std::string unit;
  std::vector<std::string> series;
  std::vector<HtmlBar> bars;
  double full = 0;
};

// `charts` as one JSON array, safe as the content of a <script> element
// (no '<', '>' or '&' left, strings from the trace included).
std::string chart_data_json(const std::vector<HtmlChart>& charts);

}  // namespace stallwatch::collector
