// SPDX-License-Identifier: MIT
#pragma once

// What the TUI needs to know about the terminal it prints to, without
// curses: whether the locale speaks UTF-8 (else glyphs fall back to ASCII)
// and how many columns stdout has.

namespace stallwatch::tui {

// Whether LC_CTYPE from the environment uses UTF-8. Sets the process's
// LC_CTYPE from the environment as a side effect (ncurses needs that too).
bool locale_is_utf8();

// The columns of stdout when it is a terminal, else $COLUMNS, else `fallback`.
int terminal_columns(int fallback);

}  // namespace stallwatch::tui
