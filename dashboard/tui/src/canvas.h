// SPDX-License-Identifier: MIT
#pragma once

// A frame of the terminal dashboard as styled text, independent of ncurses:
// the views compose a Canvas, curses_screen.h paints it with colours, and
// render_plain() prints it for `stallwatch top --once`. Styles are roles
// (bad, warn, a timeline class), not colours; the painter picks colours.
// Value type; no thread affinity.

#include <cstdint>
#include <string>
#include <vector>

namespace stallwatch::tui {

enum class Style : std::uint8_t {
  kNormal,
  kDim,
  kBold,
  kHeader,  // column headings
  kTitle,   // the top line
  kBad,     // red: data-starved, firing alerts, errors
  kWarn,    // amber: io-bound, host-bound, pending alerts, compute proxy
  kGood,    // green: well-overlapped, live
  kBanner,  // reconnecting
  kDeviceBusy,
  kFetch,
  kCompute,
  kComm,
  kIo,
  kAppIo,
  kPipeline,
  kOther,
};

struct Span {
  std::string text;
  Style style = Style::kNormal;
};

struct Line {
  std::vector<Span> spans;
  bool selected = false;  // the cursor row: painted in reverse video to the edge

  Line& add(std::string text, Style style = Style::kNormal) {
    spans.push_back({std::move(text), style});
    return *this;
  }
  std::string text() const;
  int width() const;
};

struct Canvas {
  int width = 80;
  std::vector<Line> lines;

  Line& add_line() { return lines.emplace_back(); }
  void add_blank() { lines.emplace_back(); }
};

// The canvas as plain text: each line cut to the canvas width, trailing
// spaces removed, '\n' after every line; `ascii` applies to_ascii().
std::string render_plain(const Canvas& canvas, bool ascii);

}  // namespace stallwatch::tui
