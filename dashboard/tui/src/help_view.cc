// SPDX-License-Identifier: MIT
#include "help_view.h"

#include <array>
#include <string>
#include <utility>

#include "format.h"
#include "text_width.h"
#include "timeline_text.h"
#include "verdict_style.h"

namespace stallwatch::tui {
namespace {

constexpr int kKeyWidth = 16;

void heading(Canvas& c, const char* text) {
  c.add_line().add(text, Style::kHeader);
}

void entry(Canvas& c, const std::string& key, const std::string& meaning,
           Style key_style = Style::kBold) {
  Line& line = c.add_line();
  line.add("  " + fit(key, kKeyWidth) + "  ", key_style);
  line.add(meaning);
}

}  // namespace

void compose_help_body(Canvas& c, const TopModel& model) {
  std::string windows;
  for (const std::string& w : model.windows)
    windows += (windows.empty() ? "" : ", ") + window_label(w);
  heading(c, "KEYS");
  entry(c, "q", "quit (also Ctrl-C)");
  entry(c, "↑ ↓  j k", "move between ranks (PgUp/PgDn, Home/End)");
  entry(c, "← →", "move between jobs");
  entry(c, "Enter", "rank detail: every window and a timeline of the last seconds");
  entry(c, "Esc  Backspace", "back");
  entry(c, "w", "next window" + (windows.empty() ? std::string() : " (" + windows + ")"));
  entry(c, "s", "next sort order (rank, data stall, device idle, slowest steps/s, verdict)");
  entry(c, "+ -", "zoom the timeline in and out (rank detail)");
  entry(c, "h", "this help");
  c.add_blank();

  heading(c, "VERDICTS");
  for (const auto& v : catalog::kVerdicts) {
    entry(c, std::string(v.name), std::string(v.meaning), verdict_style(v.name));
  }
  c.add_blank();

  heading(c, "CAUSES (data-starved: loader time in I/O calls; host-bound: launch calls)");
  for (const auto& t : catalog::kCauses) {
    if (t.id != catalog::Cause::kNone)
      entry(c, std::string(t.name), std::string(t.meaning), cause_style(t.name));
  }
  c.add_blank();

  heading(c, "COLUMNS");
  const std::array<std::pair<const char*, const char*>, 8> columns{{
      {"CAUSE", "why a data-starved or host-bound rank waits (see CAUSES)"},
      {"DEV IDLE", "share of the window with no device activity"},
      {"DATA STALL", "share of the window the device idles while the loop waits for data"},
      {"UNOVL I/O", "application I/O not overlapped with compute, in the window"},
      {"OVERLAP", "1 - unoverlapped app I/O / app I/O"},
      {"STALL", "data stall per second over the recent past, newest at the right"},
      {"DEVICE", "source of device activity; compute-proxy: no device signal, compute stands in"},
      {"DROP/LOST", "events the agent had to drop / batches lost on the way (sequence gaps)"},
  }};
  for (const auto& [name, meaning] : columns)
    entry(c, name, meaning);
  c.add_blank();

  heading(c, "TIMELINE");
  Line legend = timeline_legend();
  legend.spans.insert(legend.spans.begin(), Span{"  ", Style::kNormal});
  c.lines.push_back(std::move(legend));
}

}  // namespace stallwatch::tui
