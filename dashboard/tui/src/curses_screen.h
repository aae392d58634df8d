// SPDX-License-Identifier: MIT
#pragma once

// The terminal under ncurses (wide-character build): sets it up on
// construction and restores it on destruction, paints a Canvas with the
// colours of each Style, and turns key presses into Keys. Falls back to ASCII
// glyphs when the locale is not UTF-8 and to attributes only when the
// terminal has no colours. The only file that includes curses.h.
//
// UI thread only. One instance at a time (ncurses is global state).

#include <utility>

#include "canvas.h"
#include "top_state.h"

namespace stallwatch::tui {

class CursesScreen {
 public:
  CursesScreen();
  ~CursesScreen();
  CursesScreen(const CursesScreen&) = delete;
  CursesScreen& operator=(const CursesScreen&) = delete;

  // False when the terminal could not be set up (no terminal, unknown TERM).
  bool ok() const { return ok_; }
  // Columns and rows.
  std::pair<int, int> size() const;
  void paint(const Canvas& canvas);
  // Waits up to `timeout_ms` for a key; kNone on timeout, on a resize (see
  // take_resized()) and for keys without a meaning.
  Key read_key(int timeout_ms);
  bool take_resized() { return std::exchange(resized_, false); }
  // Leaves curses mode; the destructor does it too. Safe to call twice.
  void close();

 private:
  bool ok_ = false;
  bool closed_ = false;
  bool utf8_ = true;
  bool resized_ = false;
};

}  // namespace stallwatch::tui
