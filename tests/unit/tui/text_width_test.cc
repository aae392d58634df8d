// SPDX-License-Identifier: MIT
#include "text_width.h"

#include <gtest/gtest.h>

namespace stallwatch::tui {
namespace {

TEST(TextWidthTest, CountsColumnsNotBytes) {
  EXPECT_EQ(display_width(""), 0);
  EXPECT_EQ(display_width("abc"), 3);
  EXPECT_EQ(display_width("▁▂▃"), 3);
  EXPECT_EQ(display_width("12 µs"), 5);
  EXPECT_EQ(display_width("作业"), 4);
  EXPECT_EQ(display_width("e\xCC\x81"), 1);  // e + combining acute
}

TEST(TextWidthTest, FitPadsOrCutsWithAnEllipsis) {
  EXPECT_EQ(fit("ab", 5), "ab   ");
  EXPECT_EQ(fit("ab", 5, Align::kRight), "   ab");
  EXPECT_EQ(fit("abcdef", 4), "abc…");
  EXPECT_EQ(display_width(fit("abcdef", 4)), 4);
  EXPECT_EQ(fit("abcd", 4), "abcd");
  EXPECT_EQ(fit("x", 0), "");
  // A wide character that would straddle the cut becomes a space.
  EXPECT_EQ(fit("a作业", 3), "a …");
  EXPECT_EQ(display_width(fit("作业作业", 5)), 5);
}

TEST(TextWidthTest, ClipNeverPads) {
  EXPECT_EQ(clip("abcdef", 3), "abc");
  EXPECT_EQ(clip("ab", 5), "ab");
  EXPECT_EQ(clip("█▌ x", 2), "█▌");
}

TEST(TextWidthTest, SanitizeRemovesTerminalEscapes) {
  EXPECT_EQ(sanitize("job-1"), "job-1");
  EXPECT_EQ(sanitize("evil\x1b[2Jjob"), "evil?[2Jjob");
  EXPECT_EQ(sanitize("a\nb\tc"), "a?b?c");
  EXPECT_EQ(sanitize("\xC2\x9B"
                     "31m"),
            "?31m");  // C1 CSI
  EXPECT_EQ(sanitize("bad\xFF"), "bad?");
  EXPECT_EQ(sanitize("作业"), "作业");
}

TEST(TextWidthTest, AsciiFallbackKeepsWidths) {
  EXPECT_EQ(to_ascii("▁▂▃▄▅▆▇█"), "_.-:=+*#");
  EXPECT_EQ(to_ascii("—"), "-");
  EXPECT_EQ(to_ascii("12 µs · ok…"), "12 us . ok~");
  EXPECT_EQ(to_ascii("███▌  "), "###+  ");
  EXPECT_EQ(to_ascii("↑↓←→"), "^v<>");
  const std::string wide = to_ascii("作");
  EXPECT_EQ(wide.size(), 2u);
  for (const char* s : {"data stall ↓", "● live", "reconnecting…", "│DDFF│"}) {
    EXPECT_EQ(display_width(to_ascii(s)), display_width(s)) << s;
  }
}

}  // namespace
}  // namespace stallwatch::tui
