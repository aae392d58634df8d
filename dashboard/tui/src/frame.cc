// SPDX-License-Identifier: MIT
#include "frame.h"

#include <algorithm>

#include "detail_view.h"
#include "format.h"
#include "help_view.h"
#include "main_view.h"
#include "text_width.h"
#include "verdict_style.h"

namespace stallwatch::tui {
namespace {

std::string alert_value(const Alert& a, std::optional<double> v) {
  const auto ends_with = [&](std::string_view suffix) {
    return a.metric.size() >= suffix.size() &&
           a.metric.compare(a.metric.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_ratio")) return format_percent(v);
  if (ends_with("_seconds")) return format_seconds(v);
  return format_rate(v);
}

void title_line(Canvas& c, const TopState& s, const TopModel& m) {
  Line& line = c.add_line();
  line.add("stallwatch top", Style::kTitle);
  line.add(" · " + sanitize(m.url));
  if (s.view == View::kHelp) {
    line.add(" · help");
  } else if (!s.window.empty()) {
    line.add(" · window ");
    line.add(window_label(s.window), Style::kBold);
    line.add(" · sort ");
    line.add(std::string(sort_label(s.sort)), Style::kBold);
  }
  switch (m.link.state) {
    case LinkView::State::kOnce:
      break;
    case LinkView::State::kConnecting:
      line.add(" · connecting…", Style::kDim);
      break;
    case LinkView::State::kLive:
      line.add(" · ").add("● live", Style::kGood);
      break;
    case LinkView::State::kReconnecting:
      line.add(" · ").add("reconnecting…", Style::kBanner);
      break;
  }
}

void banner_line(Canvas& c, const TopModel& m) {
  const bool down = m.link.state == LinkView::State::kReconnecting ||
                    (m.link.state == LinkView::State::kConnecting && !m.link.error.empty());
  if (!down) return;
  const bool refused = m.link.error.rfind("HTTP ", 0) == 0;
  std::string text = m.link.state == LinkView::State::kReconnecting
                         ? "reconnecting… lost the collector at "
                     : refused ? "refused by the collector at "
                               : "cannot reach the collector at ";
  text += sanitize(m.url);
  if (!m.link.error.empty()) text += ": " + sanitize(m.link.error);
  text += " · retrying in " + std::to_string(std::max(0, m.link.retry_in_seconds)) + " s";
  if (m.has_data()) text += " · showing the last data received";
  c.add_line().add(std::move(text), Style::kBanner);
}

Line key_line(View view) {
  Line line;
  const auto key = [&line](const char* k, const char* what) {
    if (!line.spans.empty()) line.add("  ");
    line.add(k, Style::kBold).add(" " + std::string(what), Style::kDim);
  };
  switch (view) {
    case View::kMain:
      key("q", "quit");
      key("↑↓/jk", "rank");
      key("←→", "job");
      key("Enter", "detail");
      key("w", "window");
      key("s", "sort");
      key("h", "help");
      break;
    case View::kDetail:
      key("Esc", "back");
      key("↑↓/jk", "rank");
      key("+/-", "zoom");
      key("w", "window");
      key("h", "help");
      key("q", "quit");
      break;
    case View::kHelp:
      key("Esc/h", "back");
      key("q", "quit");
      break;
  }
  return line;
}

}  // namespace

Line alerts_line(const std::vector<Alert>& alerts) {
  Line line;
  line.add("alerts: ", Style::kBold);
  std::size_t resolved = 0;
  bool any = false;
  for (const char* state : {"firing", "pending"}) {
    for (const Alert& a : alerts) {
      if (a.state != state) continue;
      if (any) line.add(" · ", Style::kDim);
      any = true;
      std::string text = std::string(state == std::string_view("firing") ? "FIRING " : "pending ") +
                         sanitize(a.name) + " " + sanitize(a.job);
      if (a.rank) text += "/" + std::to_string(*a.rank);
      if (!a.metric.empty()) {
        text += " " + sanitize(a.metric) + " " + alert_value(a, a.value);
        if (a.threshold) text += " ≥ " + alert_value(a, a.threshold);
      }
      line.add(std::move(text), alert_style(a.state));
    }
  }
  for (const Alert& a : alerts)
    resolved += a.state == "resolved" ? 1 : 0;
  if (!any) line.add("none", Style::kDim);
  if (resolved > 0)
    line.add(" (" + std::to_string(resolved) + " resolved in the last hour)", Style::kDim);
  return line;
}

Canvas compose_frame(const TopState& s, const TopModel& m, int width, int height) {
  Canvas c;
  c.width = std::max(20, width);
  title_line(c, s, m);
  banner_line(c, m);

  Canvas body;
  body.width = c.width;
  const int fixed = static_cast<int>(c.lines.size()) + 1 + (m.interactive ? 1 : 0);
  const int rows = height > 0 ? std::max(1, height - fixed) : -1;
  switch (s.view) {
    case View::kMain:
      compose_main_body(body, s, m, rows);
      break;
    case View::kDetail:
      compose_detail_body(body, s, m, rows);
      break;
    case View::kHelp:
      compose_help_body(body, m);
      break;
  }
  if (rows > 0) body.lines.resize(static_cast<std::size_t>(rows));
  for (Line& line : body.lines)
    c.lines.push_back(std::move(line));
  if (rows < 0) c.add_blank();

  c.lines.push_back(alerts_line(m.alerts));
  if (m.interactive) c.lines.push_back(key_line(s.view));
  if (height > 0 && static_cast<int>(c.lines.size()) > height)
    c.lines.resize(static_cast<std::size_t>(height));
  return c;
}

}  // namespace stallwatch::tui
