// SPDX-License-Identifier: MIT
// Writes the catalog's vocabulary (catalog/vocabulary.h) as the ES module the
// web page imports from /js/vocabulary.js, so the page and the terminal
// dashboard use the same words. Run at build time (CMakeLists.txt), never by
// the daemon:   stallwatch_vocabulary_js <out.js>

#include <array>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "catalog/vocabulary.h"

namespace {

// A JSON string literal, which JavaScript reads as the same string.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <class Id, std::size_t N>
std::string table(std::string_view name,
                  const std::array<stallwatch::catalog::Term<Id>, N>& terms) {
  std::string out = "export const " + std::string(name) + " = Object.freeze({\n";
  for (const auto& t : terms) {
    out += "  " + quoted(t.name) + ": Object.freeze({ label: " + quoted(t.label) +
           ", tone: " + quoted(to_string(t.tone)) + ", meaning: " + quoted(t.meaning) + " }),\n";
  }
  return out + "});\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: stallwatch_vocabulary_js <out.js>\n");
    return 2;
  }
  namespace catalog = stallwatch::catalog;
  const std::string text =
      "// Generated at build time from collector/catalog/include/catalog/vocabulary.h\n"
      "// (dashboard/web/src/vocabulary_js.cc); do not edit. What each verdict, rank\n"
      "// state, device source and cause is called, its tone (ok, warn, bad, dim) and\n"
      "// what it means: the terminal dashboard reads the same table. Keys are the\n"
      "// API's names, in the catalog's order (verdicts: problems first).\n" +
      table("kVerdicts", catalog::kVerdicts) + table("kRankStates", catalog::kRankStates) +
      table("kDeviceSources", catalog::kDeviceSignals) + table("kCauses", catalog::kCauses);
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "stallwatch_vocabulary_js: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
