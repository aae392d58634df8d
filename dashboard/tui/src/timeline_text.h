// SPDX-License-Identifier: MIT
#pragma once

// The rank detail's text timeline: the last seconds of regions drawn as one
// row of characters per thread, like a coarse Nsight Systems timeline. Each
// character covers (to - from) / columns of time and shows the class that
// covers most of it (device busy, fetch, compute, comm, POSIX I/O, app I/O);
// pipeline regions (epochs) only where nothing else runs. Pure.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api_model.h"
#include "canvas.h"

namespace stallwatch::tui {

struct ClassGlyph {
  std::string_view cls;  // the API's class name
  char glyph;            // what the timeline prints
  Style style;
  std::string_view label;  // for the legend
};

// The glyph of an API class; "other" for an unknown one.
const ClassGlyph& class_glyph(std::string_view cls);
// Every glyph, in legend order.
const std::vector<ClassGlyph>& class_glyphs();

struct TimelineRow {
  std::string label;  // "main 4242", "worker 4250/4251", "GPU 0 · stream 7"
  std::string cells;  // one glyph per column, ' ' where the thread ran nothing
};

// One row per thread of `view`, `columns` wide: device lanes (labelled as the
// API says) first, then host threads, each in the view's thread order.
std::vector<TimelineRow> timeline_rows(const TimelineView& view, int columns);

// `cells` as spans styled by class (runs of one glyph share a span).
Line timeline_cells_line(std::string_view cells);

// An axis under `columns` timeline columns spanning [from_ns, to_ns): labels
// "-10 s" at the left, "-5 s" in the middle and "now" at the right.
std::string timeline_axis(std::int64_t from_ns, std::int64_t to_ns, int columns);

// "D device busy  F fetch  ..." with each glyph styled.
Line timeline_legend();

}  // namespace stallwatch::tui
