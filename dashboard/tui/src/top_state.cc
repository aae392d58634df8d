// SPDX-License-Identifier: MIT
#include "top_state.h"

#include <algorithm>
#include <array>

namespace stallwatch::tui {
namespace {

constexpr std::array<int, 4> kTimelineSpans{5, 10, 30, 60};
constexpr int kPage = 10;

KeyEffect redraw() {
  KeyEffect e;
  e.redraw = true;
  return e;
}

KeyEffect move_rank(TopState& s, const TopModel& m, int delta) {
  const auto ranks = visible_ranks(s, m);
  if (ranks.empty()) return {};
  const auto n = static_cast<int>(ranks.size());
  int index = -1;
  for (int i = 0; i < n; ++i) {
    if (s.rank && ranks[static_cast<std::size_t>(i)]->rank == *s.rank) index = i;
  }
  const int next = index < 0 ? 0 : std::clamp(index + delta, 0, n - 1);
  if (next == index) return {};
  s.rank = ranks[static_cast<std::size_t>(next)]->rank;
  KeyEffect e = redraw();
  e.timeline_changed = s.view == View::kDetail;
  return e;
}

KeyEffect move_job(TopState& s, const TopModel& m, int delta) {
  if (m.jobs.empty()) return {};
  const auto n = static_cast<int>(m.jobs.size());
  int index = -1;
  for (int i = 0; i < n; ++i) {
    if (m.jobs[static_cast<std::size_t>(i)].job == s.job) index = i;
  }
  const int next = index < 0 ? 0 : std::clamp(index + delta, 0, n - 1);
  if (next == index) return {};
  s.job = m.jobs[static_cast<std::size_t>(next)].job;
  s.job_pinned = false;
  s.rank.reset();
  if (s.view == View::kDetail) s.view = View::kMain;
  KeyEffect e = redraw();
  e.job_changed = true;
  return e;
}

KeyEffect zoom(TopState& s, int direction) {
  if (s.view != View::kDetail) return {};
  const auto it = std::find(kTimelineSpans.begin(), kTimelineSpans.end(), s.timeline_seconds);
  auto index = it == kTimelineSpans.end() ? 1 : static_cast<int>(it - kTimelineSpans.begin());
  index = std::clamp(index + direction, 0, static_cast<int>(kTimelineSpans.size()) - 1);
  if (kTimelineSpans[static_cast<std::size_t>(index)] == s.timeline_seconds) return {};
  s.timeline_seconds = kTimelineSpans[static_cast<std::size_t>(index)];
  KeyEffect e = redraw();
  e.timeline_changed = true;
  return e;
}

}  // namespace

std::vector<const RankRow*> visible_ranks(const TopState& state, const TopModel& model) {
  if (!model.detail || model.detail->head.job != state.job) return {};
  return sorted_ranks(model.detail->ranks, state.sort, state.window);
}

KeyEffect apply_key(TopState& s, Key key, const TopModel& m) {
  if (key == Key::kQuit) {
    KeyEffect e;
    e.quit = true;
    return e;
  }
  if (s.view == View::kHelp) {
    if (key == Key::kHelp || key == Key::kBack) {
      s.view = s.behind_help;
      return redraw();
    }
    return {};
  }
  switch (key) {
    case Key::kHelp:
      s.behind_help = s.view;
      s.view = View::kHelp;
      return redraw();
    case Key::kBack:
      if (s.view != View::kDetail) return {};
      s.view = View::kMain;
      return redraw();
    case Key::kUp:
      return move_rank(s, m, -1);
    case Key::kDown:
      return move_rank(s, m, 1);
    case Key::kPageUp:
      return move_rank(s, m, -kPage);
    case Key::kPageDown:
      return move_rank(s, m, kPage);
    case Key::kHome:
      return move_rank(s, m, -static_cast<int>(m.detail ? m.detail->ranks.size() : 0));
    case Key::kEnd:
      return move_rank(s, m, static_cast<int>(m.detail ? m.detail->ranks.size() : 0));
    case Key::kLeft:
      return move_job(s, m, -1);
    case Key::kRight:
      return move_job(s, m, 1);
    case Key::kEnter: {
      if (s.view != View::kMain || !s.rank || visible_ranks(s, m).empty()) return {};
      s.view = View::kDetail;
      KeyEffect e = redraw();
      e.timeline_changed = true;
      return e;
    }
    case Key::kWindow: {
      if (m.windows.empty()) return {};
      const auto it = std::find(m.windows.begin(), m.windows.end(), s.window);
      s.window = it == m.windows.end() || it + 1 == m.windows.end() ? m.windows.front() : *(it + 1);
      return redraw();
    }
    case Key::kSort:
      s.sort = next_sort(s.sort);
      return redraw();
    case Key::kZoomIn:
      return zoom(s, -1);
    case Key::kZoomOut:
      return zoom(s, 1);
    case Key::kNone:
    case Key::kQuit:
      break;
  }
  return {};
}

KeyEffect reconcile(TopState& s, const TopModel& m) {
  KeyEffect e;
  if (!m.windows.empty() &&
      std::find(m.windows.begin(), m.windows.end(), s.window) == m.windows.end()) {
    const bool has_verdict_window =
        std::find(m.windows.begin(), m.windows.end(), m.verdict_window) != m.windows.end();
    s.window = has_verdict_window ? m.verdict_window : m.windows.front();
    e.redraw = true;
  }
  const bool keep_pinned = s.job_pinned && !s.job.empty();
  if (!keep_pinned && m.find_job(s.job) == nullptr && !m.jobs.empty()) {
    const auto active = std::find_if(m.jobs.begin(), m.jobs.end(),
                                     [](const JobSummary& j) { return j.state == "active"; });
    s.job = active != m.jobs.end() ? active->job : m.jobs.front().job;
    s.rank.reset();
    if (s.view == View::kDetail) s.view = View::kMain;
    if (s.view == View::kHelp) s.behind_help = View::kMain;
    e.job_changed = true;
    e.redraw = true;
  }
  const auto ranks = visible_ranks(s, m);
  if (!ranks.empty()) {
    const bool known = s.rank && std::any_of(ranks.begin(), ranks.end(),
                                             [&](const RankRow* r) { return r->rank == *s.rank; });
    if (!known) {
      s.rank = ranks.front()->rank;
      e.timeline_changed =
          s.view == View::kDetail || (s.view == View::kHelp && s.behind_help == View::kDetail);
      e.redraw = true;
    }
  }
  return e;
}

}  // namespace stallwatch::tui
