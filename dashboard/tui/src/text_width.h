// SPDX-License-Identifier: MIT
#pragma once

// Terminal-column arithmetic for UTF-8 text: display width, fitting into a
// column, cleaning untrusted strings, and the ASCII fallback for terminals
// whose locale is not UTF-8. Pure functions.
//
// Widths follow the common wcwidth rules for what the TUI shows: East Asian
// wide and emoji ranges count 2, combining marks 0, everything else 1. Not a
// full Unicode implementation: grapheme clusters and variation selectors
// are not handled.

#include <string>
#include <string_view>

namespace stallwatch::tui {

enum class Align { kLeft, kRight };

// Columns `text` takes on a terminal.
int display_width(std::string_view text);

// `text` in exactly `width` columns: padded with spaces, or cut with a
// trailing "…" when too wide. A wide character that would straddle the edge
// becomes a space.
std::string fit(std::string_view text, int width, Align align = Align::kLeft);

// At most `width` columns of `text`, cut without an ellipsis, never padded.
std::string clip(std::string_view text, int width);

// Makes a string from the network safe to print: control characters (C0,
// DEL, C1) and malformed UTF-8 become '?', so a job name cannot carry
// terminal escape sequences.
std::string sanitize(std::string_view untrusted);

// Replaces every non-ASCII character the TUI draws (blocks, dashes, arrows,
// "µ", "…") with one ASCII character of the same width, and anything else
// non-ASCII with '?' (or "??" when wide). For terminals that cannot show UTF-8.
std::string to_ascii(std::string_view text);

}  // namespace stallwatch::tui
