// SPDX-License-Identifier: MIT
#include "canvas.h"

#include "text_width.h"

namespace stallwatch::tui {

std::string Line::text() const {
  std::string out;
  for (const Span& s : spans)
    out += s.text;
  return out;
}

int Line::width() const {
  int w = 0;
  for (const Span& s : spans)
    w += display_width(s.text);
  return w;
}

std::string render_plain(const Canvas& canvas, bool ascii) {
  std::string out;
  for (const Line& line : canvas.lines) {
    std::string text = clip(line.text(), canvas.width);
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out += ascii ? to_ascii(text) : text;
    out.push_back('\n');
  }
  return out;
}

}  // namespace stallwatch::tui
