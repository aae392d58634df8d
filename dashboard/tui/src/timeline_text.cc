// SPDX-License-Identifier: MIT
#include "timeline_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

#include "text_width.h"

namespace stallwatch::tui {
namespace {

// Legend order is also the tie-break order: the first class wins a tie.
const std::vector<ClassGlyph> kGlyphs{
    {"device_busy", 'D', Style::kDeviceBusy, "device busy"},
    {"fetch", 'F', Style::kFetch, "fetch (waiting for data)"},
    {"compute", 'C', Style::kCompute, "compute"},
    {"comm", 'M', Style::kComm, "comm"},
    {"io", 'I', Style::kIo, "POSIX I/O"},
    {"app_io", 'A', Style::kAppIo, "app I/O"},
    {"pipeline", '-', Style::kPipeline, "pipeline"},
    {"other", '.', Style::kOther, "other"},
};
constexpr std::size_t kPipeline = 6;
constexpr std::size_t kOther = 7;

std::size_t glyph_index(std::string_view cls) {
  for (std::size_t i = 0; i < kGlyphs.size(); ++i) {
    if (kGlyphs[i].cls == cls) return i;
  }
  return kOther;
}

using Interval = std::pair<std::int64_t, std::int64_t>;

// A device lane (docs/api.md: a tid with the high bit set, which the API
// gives a device and a label).
bool is_lane(const TimelineThread& t) {
  return t.device.has_value() || t.tid >= (std::int64_t{1} << 31);
}

// Merges overlapping intervals so nested regions of one class count once.
std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> out;
  for (const Interval& iv : intervals) {
    if (!out.empty() && iv.first <= out.back().second) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

std::string seconds_label(double seconds) {
  char buf[32];
  if (std::fabs(seconds - std::round(seconds)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  }
  return buf;
}

}  // namespace

const ClassGlyph& class_glyph(std::string_view cls) {
  return kGlyphs[glyph_index(cls)];
}

const std::vector<ClassGlyph>& class_glyphs() {
  return kGlyphs;
}

std::vector<TimelineRow> timeline_rows(const TimelineView& view, int columns) {
  std::vector<TimelineRow> rows;
  if (columns <= 0) return rows;
  const std::int64_t from = view.from_ns;
  const std::int64_t to = std::max(view.to_ns, view.from_ns + 1);
  const double column_ns = static_cast<double>(to - from) / columns;

  // GPU lanes first, as on the web page and in Nsight: a short terminal cuts
  // host threads, not the device.
  std::vector<const TimelineThread*> order;
  for (const TimelineThread& thread : view.threads) {
    if (is_lane(thread)) order.push_back(&thread);
  }
  for (const TimelineThread& thread : view.threads) {
    if (!is_lane(thread)) order.push_back(&thread);
  }
  for (const TimelineThread* lane : order) {
    const TimelineThread& thread = *lane;
    std::array<std::vector<Interval>, 8> by_class;
    for (const TimelineRegion& r : view.regions) {
      if (r.pid != thread.pid || r.tid != thread.tid) continue;
      const std::int64_t s = std::max(r.start_ns, from);
      const std::int64_t e = std::min(r.end_ns, to);
      if (e > s) by_class[glyph_index(r.cls)].emplace_back(s, e);
    }
    // coverage[column][class] in ns.
    std::vector<std::array<double, 8>> coverage(static_cast<std::size_t>(columns),
                                                std::array<double, 8>{});
    for (std::size_t c = 0; c < by_class.size(); ++c) {
      for (const auto& [s, e] : merged(std::move(by_class[c]))) {
        const double rs = static_cast<double>(s - from);
        const double re = static_cast<double>(e - from);
        const int first = std::clamp(static_cast<int>(rs / column_ns), 0, columns - 1);
        const int last =
            std::clamp(static_cast<int>(std::ceil(re / column_ns)) - 1, first, columns - 1);
        for (int col = first; col <= last; ++col) {
          const double cs = col * column_ns;
          const double overlap = std::min(re, cs + column_ns) - std::max(rs, cs);
          if (overlap > 0) coverage[static_cast<std::size_t>(col)][c] += overlap;
        }
      }
    }
    TimelineRow row;
    if (!thread.label.empty()) {
      row.label = sanitize(thread.label);
    } else {
      row.label =
          sanitize(thread.role.empty() ? "thread" : thread.role) + " " + std::to_string(thread.pid);
      if (thread.tid != thread.pid) row.label += "/" + std::to_string(thread.tid);
    }
    row.cells.assign(static_cast<std::size_t>(columns), ' ');
    for (std::size_t col = 0; col < coverage.size(); ++col) {
      const auto& cov = coverage[col];
      std::size_t best = kGlyphs.size();
      for (std::size_t c = 0; c < kPipeline; ++c) {
        if (cov[c] > 0 && (best == kGlyphs.size() || cov[c] > cov[best])) best = c;
      }
      if (best == kGlyphs.size() && cov[kPipeline] > 0) best = kPipeline;
      if (best == kGlyphs.size() && cov[kOther] > 0) best = kOther;
      if (best < kGlyphs.size()) row.cells[col] = kGlyphs[best].glyph;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Line timeline_cells_line(std::string_view cells) {
  Line line;
  std::size_t i = 0;
  while (i < cells.size()) {
    std::size_t j = i;
    while (j < cells.size() && cells[j] == cells[i])
      ++j;
    Style style = Style::kNormal;
    for (const ClassGlyph& g : kGlyphs) {
      if (g.glyph == cells[i]) style = g.style;
    }
    line.add(std::string(cells.substr(i, j - i)), style);
    i = j;
  }
  return line;
}

std::string timeline_axis(std::int64_t from_ns, std::int64_t to_ns, int columns) {
  if (columns <= 0) return {};
  const double span = static_cast<double>(to_ns - from_ns) / 1e9;
  std::string axis(static_cast<std::size_t>(columns), ' ');
  const auto place = [&](int at, const std::string& label) {
    const int w = static_cast<int>(label.size());
    const int start = std::clamp(at, 0, std::max(0, columns - w));
    for (int k = 0; k < w && start + k < columns; ++k)
      axis[static_cast<std::size_t>(start + k)] = label[static_cast<std::size_t>(k)];
  };
  const std::string left = "-" + seconds_label(span);
  const std::string mid = "-" + seconds_label(span / 2);
  place(0, left);
  if (columns >= static_cast<int>(left.size() + mid.size() + 8)) {
    place(columns / 2 - static_cast<int>(mid.size()) / 2, mid);
  }
  place(columns - 3, "now");
  return axis;
}

Line timeline_legend() {
  Line line;
  bool first = true;
  for (const ClassGlyph& g : kGlyphs) {
    if (!first) line.add("  ");
    first = false;
    line.add(std::string(1, g.glyph), g.style);
    line.add(" " + std::string(g.label), Style::kDim);
  }
  return line;
}

}  // namespace stallwatch::tui
