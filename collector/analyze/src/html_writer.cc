// SPDX-License-Identifier: MIT
#include "html_writer.h"

#include <nlohmann/json.hpp>

#include "traces/text_table.h"

namespace stallwatch::collector {

namespace {

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

std::string chart_data_json(const std::vector<HtmlChart>& charts) {
  nlohmann::json doc = nlohmann::json::array();
  for (const HtmlChart& c : charts) {
    nlohmann::json bars = nlohmann::json::array();
    for (const HtmlBar& b : c.bars)
      bars.push_back({{"label", b.label}, {"values", b.values}});
    doc.push_back({{"id", c.id},
                   {"unit", c.unit},
                   {"series", c.series},
                   {"bars", std::move(bars)},
                   {"full", c.full}});
  }
  // '<', '>' and '&' only occur inside JSON strings, where \u escapes mean
  // the same: the text can never close its <script> element.
  const std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace stallwatch::collector
