// SPDX-License-Identifier: MIT
#include "terminal_probe.h"

#include <langinfo.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <clocale>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace stallwatch::tui {

bool locale_is_utf8() {
  std::setlocale(LC_CTYPE, "");
  const char* codeset = nl_langinfo(CODESET);
  return codeset != nullptr &&
         (std::strcmp(codeset, "UTF-8") == 0 || std::strcmp(codeset, "utf8") == 0);
}

int terminal_columns(int fallback) {
  winsize size{};
  if (::isatty(STDOUT_FILENO) != 0 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col > 0) {
    return size.ws_col;
  }
  if (const char* env = std::getenv("COLUMNS")) {
    const std::string_view text(env);
    int columns = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), columns);
    if (ec == std::errc{} && ptr == text.data() + text.size() && columns > 0) return columns;
  }
  return fallback;
}

}  // namespace stallwatch::tui
