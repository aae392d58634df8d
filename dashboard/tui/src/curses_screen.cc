// SPDX-License-Identifier: MIT
#include "curses_screen.h"

#include <curses.h>
#include <unistd.h>

#include <cstdio>

#include "terminal_probe.h"
#include "text_width.h"

namespace stallwatch::tui {
namespace {

constexpr short kDefault = -1;
constexpr int kEscDelayMs = 25;

SCREEN* g_screen = nullptr;

// Colour pair numbers, one per coloured Style.
enum Pair : short {
  kPairBad = 1,
  kPairWarn,
  kPairGood,
  kPairBanner,
  kPairTitle,
  kPairDeviceBusy,
  kPairFetch,
  kPairCompute,
  kPairComm,
  kPairIo,
  kPairAppIo,
};

void init_pairs() {
  if (!has_colors()) return;
  start_color();
  use_default_colors();
  const short amber = COLORS >= 256 ? 214 : COLOR_YELLOW;
  init_pair(kPairBad, COLOR_RED, kDefault);
  init_pair(kPairWarn, amber, kDefault);
  init_pair(kPairGood, COLOR_GREEN, kDefault);
  init_pair(kPairBanner, COLOR_WHITE, COLOR_RED);
  init_pair(kPairTitle, COLOR_CYAN, kDefault);
  init_pair(kPairDeviceBusy, COLOR_BLACK, COLOR_GREEN);
  init_pair(kPairFetch, COLOR_WHITE, COLOR_RED);
  init_pair(kPairCompute, COLOR_WHITE, COLOR_BLUE);
  init_pair(kPairComm, COLOR_WHITE, COLOR_MAGENTA);
  init_pair(kPairIo, COLOR_BLACK, amber);
  init_pair(kPairAppIo, COLOR_BLACK, COLOR_CYAN);
}

attr_t pair(short p) {
  return has_colors() ? static_cast<attr_t>(COLOR_PAIR(p)) : A_NORMAL;
}

attr_t attr_for(Style style) {
  switch (style) {
    case Style::kNormal:
      return A_NORMAL;
    case Style::kDim:
      return A_DIM;
    case Style::kBold:
      return A_BOLD;
    case Style::kHeader:
      return A_BOLD | A_UNDERLINE;
    case Style::kTitle:
      return A_BOLD | pair(kPairTitle);
    case Style::kBad:
      return A_BOLD | pair(kPairBad);
    case Style::kWarn:
      return pair(kPairWarn);
    case Style::kGood:
      return pair(kPairGood);
    case Style::kBanner:
      return A_BOLD | (has_colors() ? pair(kPairBanner) : A_REVERSE);
    case Style::kDeviceBusy:
      return has_colors() ? pair(kPairDeviceBusy) : A_REVERSE;
    case Style::kFetch:
      return A_BOLD | (has_colors() ? pair(kPairFetch) : A_REVERSE);
    case Style::kCompute:
      return pair(kPairCompute);
    case Style::kComm:
      return pair(kPairComm);
    case Style::kIo:
      return pair(kPairIo);
    case Style::kAppIo:
      return pair(kPairAppIo);
    case Style::kPipeline:
      return A_DIM;
    case Style::kOther:
      return A_DIM;
  }
  return A_NORMAL;
}

}  // namespace

CursesScreen::CursesScreen() {
  if (::isatty(STDIN_FILENO) == 0 || ::isatty(STDOUT_FILENO) == 0) return;
  utf8_ = locale_is_utf8();
  g_screen = newterm(nullptr, stdout, stdin);
  if (g_screen == nullptr) return;
  set_term(g_screen);
  ok_ = true;
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  curs_set(0);
  set_escdelay(kEscDelayMs);
  init_pairs();
}

CursesScreen::~CursesScreen() {
  close();
}

void CursesScreen::close() {
  if (!ok_ || closed_) return;
  closed_ = true;
  curs_set(1);
  endwin();
  delscreen(g_screen);
  g_screen = nullptr;
  std::fflush(stdout);
}

std::pair<int, int> CursesScreen::size() const {
  if (!ok_) return {0, 0};
  int rows = 0;
  int cols = 0;
  getmaxyx(stdscr, rows, cols);
  return {cols, rows};
}

void CursesScreen::paint(const Canvas& canvas) {
  if (!ok_ || closed_) return;
  const auto [cols, rows] = size();
  erase();
  for (int y = 0; y < rows && y < static_cast<int>(canvas.lines.size()); ++y) {
    const Line& line = canvas.lines[static_cast<std::size_t>(y)];
    const attr_t base = line.selected ? A_REVERSE : A_NORMAL;
    int x = 0;
    for (const Span& span : line.spans) {
      if (x >= cols) break;
      // The bottom-right cell is left empty: writing it would scroll the screen.
      const int room = cols - x - (y == rows - 1 ? 1 : 0);
      const std::string text = clip(utf8_ ? span.text : to_ascii(span.text), room);
      attrset(attr_for(span.style) | base);
      mvaddstr(y, x, text.c_str());
      x += display_width(text);
    }
    if (line.selected && x < cols) {
      attrset(A_REVERSE);
      mvhline(y, x, ' ', cols - x);
    }
  }
  attrset(A_NORMAL);
  refresh();
}

Key CursesScreen::read_key(int timeout_ms) {
  if (!ok_ || closed_) return Key::kNone;
  timeout(timeout_ms);
  const int ch = getch();
  switch (ch) {
    case ERR:
      return Key::kNone;
    case KEY_RESIZE:
      resized_ = true;
      return Key::kNone;
    case 'q':
    case 'Q':
      return Key::kQuit;
    case KEY_UP:
    case 'k':
      return Key::kUp;
    case KEY_DOWN:
    case 'j':
      return Key::kDown;
    case KEY_LEFT:
      return Key::kLeft;
    case KEY_RIGHT:
      return Key::kRight;
    case KEY_PPAGE:
      return Key::kPageUp;
    case KEY_NPAGE:
    case ' ':
      return Key::kPageDown;
    case KEY_HOME:
    case 'g':
      return Key::kHome;
    case KEY_END:
    case 'G':
      return Key::kEnd;
    case '\n':
    case '\r':
    case KEY_ENTER:
      return Key::kEnter;
    case 27:
    case KEY_BACKSPACE:
    case 127:
    case 8:
      return Key::kBack;
    case 'w':
    case 'W':
      return Key::kWindow;
    case 's':
    case 'S':
      return Key::kSort;
    case 'h':
    case 'H':
    case '?':
      return Key::kHelp;
    case '+':
    case '=':
      return Key::kZoomIn;
    case '-':
    case '_':
      return Key::kZoomOut;
    default:
      return Key::kNone;
  }
}

}  // namespace stallwatch::tui
