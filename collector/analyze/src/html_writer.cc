// SPDX-License-Identifier: MIT
#include "html_writer.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "traces/text_table.h"

namespace stallwatch::collector {

namespace {

constexpr std::array<std::string_view, 6> kColors = {"#4e79a7", "#f28e2b", "#bab0ac",
                                                     "#e15759", "#76b7b2", "#59a14f"};
constexpr int kLabelWidth = 150;
constexpr int kBarWidth = 600;
constexpr int kBarHeight = 22;
constexpr int kGap = 6;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Room for one legend entry: swatch, label (about 8 px a character), gap.
int legend_width(const std::string& label) {
  return 16 + 8 * static_cast<int>(label.size()) + 20;
}

bool looks_numeric(std::string_view cell) {
  if (cell.empty()) return false;
  const char c = cell[0] == '-' && cell.size() > 1 ? cell[1] : cell[0];
  return (c >= '0' && c <= '9') || cell == "-";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

HtmlTable::HtmlTable(std::vector<std::string> header, std::string id)
    : id_(std::move(id)), header_(std::move(header)) {}

void HtmlTable::row(std::vector<std::string> cells) {
  rows_.push_back(std::move(cells));
}

void HtmlTable::write(std::ostream& out, bool sortable) const {
  out << "<table";
  if (!id_.empty()) out << " id=\"" << html_escape(id_) << "\"";
  if (sortable) out << " class=\"sortable\"";
  out << "><thead><tr>";
  for (const std::string& h : header_)
    out << "<th>" << html_escape(h) << "</th>";
  out << "</tr></thead><tbody>\n";
  for (const auto& r : rows_) {
    out << "<tr>";
    for (std::size_t c = 0; c < r.size(); ++c)
      out << (c > 0 && looks_numeric(r[c]) ? "<td class=\"n\">" : "<td>") << html_escape(r[c])
          << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void write_svg_bars(std::ostream& out, std::string_view id, std::string_view unit,
                    const std::vector<std::string>& series, const std::vector<HtmlBar>& bars,
                    double full) {
  if (full <= 0) {
    for (const HtmlBar& b : bars) {
      double total = 0;
      for (const double v : b.values)
        total += std::max(v, 0.0);
      full = std::max(full, total);
    }
  }
  const int legend_y = static_cast<int>(bars.size()) * (kBarHeight + kGap) + kGap;
  const int height = legend_y + 24;
  int width = kLabelWidth;
  for (const std::string& s : series)
    width += legend_width(s);
  width = std::max(width, kLabelWidth + kBarWidth + 10);
  out << "<svg id=\"" << html_escape(id) << "\" class=\"chart\" role=\"img\" width=\"" << width
      << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\">\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const HtmlBar& b = bars[i];
    const int y = static_cast<int>(i) * (kBarHeight + kGap) + kGap;
    out << "<text x=\"0\" y=\"" << y + kBarHeight - 6 << "\">" << html_escape(b.label)
        << "</text>\n";
    double x = kLabelWidth;
    for (std::size_t s = 0; s < b.values.size() && s < series.size(); ++s) {
      const double w = full > 0 ? std::max(b.values[s], 0.0) / full * kBarWidth : 0;
      out << "<rect x=\"" << number(x) << "\" y=\"" << y << "\" width=\"" << number(w)
          << "\" height=\"" << kBarHeight << "\" fill=\"" << kColors[s % kColors.size()]
          << "\" data-series=\"" << html_escape(series[s]) << "\"><title>" << html_escape(b.label)
          << ", " << html_escape(series[s]) << ": " << html_escape(fixed(b.values[s], 1)) << " "
          << html_escape(unit) << "</title></rect>\n";
      x += w;
    }
  }
  int lx = kLabelWidth;
  for (std::size_t s = 0; s < series.size(); ++s) {
    out << "<rect x=\"" << lx << "\" y=\"" << legend_y + 4
        << "\" width=\"12\" height=\"12\" fill=\"" << kColors[s % kColors.size()]
        << "\"/><text x=\"" << lx + 16 << "\" y=\"" << legend_y + 15 << "\">"
        << html_escape(series[s]) << "</text>\n";
    lx += legend_width(series[s]);
  }
  out << "</svg>\n";
}

}  // namespace stallwatch::collector
