// SPDX-License-Identifier: MIT
#pragma once

// What the user has chosen in `stallwatch top`: the view, the job and rank
// under the cursor, the window, the sort order, the timeline span; and how
// each key changes it. Pure: the app feeds it keys and the current model and
// acts on the returned effects (subscribe to another job, fetch a timeline).
// Selections are held by id (job name, rank number), so they survive
// re-sorting and ticks that reorder rows.

#include <cstdint>
#include <optional>
#include <string>

#include "sort_order.h"
#include "top_model.h"

namespace stallwatch::tui {

enum class View : std::uint8_t { kMain, kDetail, kHelp };

enum class Key : std::uint8_t {
  kNone,
  kUp,
  kDown,
  kLeft,
  kRight,
  kPageUp,
  kPageDown,
  kHome,
  kEnd,
  kEnter,
  kBack,
  kQuit,
  kWindow,
  kSort,
  kHelp,
  kZoomIn,
  kZoomOut,
};

struct TopState {
  View view = View::kMain;
  View behind_help = View::kMain;
  std::string window;  // selected window name; empty until the windows are known
  SortKey sort = SortKey::kRank;
  std::string job;          // selected job; empty until one is known
  bool job_pinned = false;  // chosen with --job: kept even while the collector does not know it
  std::optional<std::int32_t> rank;
  int timeline_seconds = 10;
};

struct KeyEffect {
  bool quit = false;
  bool job_changed = false;       // subscribe to the new job, reseed its history
  bool timeline_changed = false;  // the detail view needs (another) timeline
  bool redraw = false;
};

KeyEffect apply_key(TopState& state, Key key, const TopModel& model);

// Makes the selection valid for `model`: a window it has, a job it knows
// (the first active one by default), a rank of that job. Returns what changed.
KeyEffect reconcile(TopState& state, const TopModel& model);

// The ranks of the selected job in display order (empty before its detail arrives).
std::vector<const RankRow*> visible_ranks(const TopState& state, const TopModel& model);

}  // namespace stallwatch::tui
