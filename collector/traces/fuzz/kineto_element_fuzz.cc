// SPDX-License-Identifier: MIT
// libFuzzer target: the Kineto reader's hand-written element parser against
// simdjson's, and the scanner with it against the scanner without it.
//  1. The input as one traceEvents element: whenever the hand-written parser
//     (parse_kineto_element_fast) takes it, simdjson's On Demand parser
//     (parse_kineto_element) must take it too and give the same event, field
//     by field and bit for bit. The padding after it is filled with quotes,
//     so that a parser which read into it would show.
//  2. The input as the inside of a traceEvents array, in a file: the scanner
//     that lets the hand-written parser measure elements
//     (set_element_reader) must split the document exactly as the scanner
//     that measures them itself, item by item; and each element the
//     hand-written parser measured must read as simdjson reads it.
// Any difference aborts. Sanitizers catch memory errors in all of them.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "input_file.h"
#include "json_object_scanner.h"
#include "kineto_element.h"
#include "kineto_element_equal.h"

namespace {

using stallwatch::collector::InputFile;
using stallwatch::collector::JsonObjectScanner;
using stallwatch::collector::KinetoElement;
using stallwatch::collector::TraceEvent;

simdjson::ondemand::parser& parser() {
  static simdjson::ondemand::parser p;
  return p;
}

bool inside(std::string_view part, std::string_view text) {
  return part.data() == nullptr ||
         (part.data() >= text.data() && part.data() + part.size() <= text.data() + text.size());
}

// `text` is followed by readable padding.
void check_against_simdjson(std::string_view text, const TraceEvent& fast,
                            const KinetoElement& fast_element) {
  TraceEvent slow;
  KinetoElement slow_element;
  std::string problem;
  if (!stallwatch::collector::parse_kineto_element(parser(), text, slow, slow_element, problem))
    std::abort();
  if (!stallwatch::collector::same_kineto_fields(fast, fast_element, slow, slow_element))
    std::abort();
}

void check_element(const std::uint8_t* data, std::size_t size) {
  std::string buffer(reinterpret_cast<const char*>(data), size);
  buffer.append(JsonObjectScanner::kPadding, '"');
  const std::string_view text(buffer.data(), size);
  TraceEvent slow;
  KinetoElement slow_element;
  std::string problem;
  stallwatch::collector::parse_kineto_element(parser(), text, slow, slow_element, problem);
  TraceEvent fast;
  KinetoElement fast_element;
  if (!stallwatch::collector::parse_kineto_element_fast(text, fast, fast_element)) return;
  if (!inside(fast.name, text) || !inside(fast.cat, text) || !inside(fast_element.ph, text))
    std::abort();
  check_against_simdjson(text, fast, fast_element);
}

struct Measured {
  TraceEvent event;
  KinetoElement element;
};

std::size_t measure(std::string_view rest, void* context) {
  auto& m = *static_cast<Measured*>(context);
  m = Measured{};
  std::size_t length = 0;
  if (!stallwatch::collector::parse_kineto_element_fast_prefix(rest, m.event, m.element, length))
    return 0;
  if (length == 0 || length > rest.size()) std::abort();
  return length;
}

std::string temp_file() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string name = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                       "/stallwatch-kineto-element-fuzz-XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0) std::abort();
    ::close(fd);
    return name;
  }();
  return path;
}

void check_scanner(const std::uint8_t* data, std::size_t size) {
  const std::string path = temp_file();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  std::fputs("{\"traceEvents\": [", f);
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fputs("]}", f);
  std::fclose(f);
  std::string error;
  auto plain_file = InputFile::open(path, error);
  auto measured_file = InputFile::open(path, error);
  if (!plain_file || !measured_file) std::abort();
  JsonObjectScanner plain(*plain_file, "traceEvents");
  JsonObjectScanner measured(*measured_file, "traceEvents");
  Measured m;
  measured.set_element_reader(&measure, &m);
  for (;;) {
    const JsonObjectScanner::Item a = plain.next();
    const JsonObjectScanner::Item b = measured.next();
    if (a != b || plain.text() != measured.text() || plain.offset() != measured.offset() ||
        plain.key() != measured.key() || plain.error() != measured.error() ||
        plain.bytes() != measured.bytes()) {
      std::abort();
    }
    if (a == JsonObjectScanner::Item::kEnd || a == JsonObjectScanner::Item::kError) break;
    if (b == JsonObjectScanner::Item::kElement && measured.element_read())
      check_against_simdjson(measured.text(), m.event, m.element);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_element(data, size);
  check_scanner(data, size);
  return 0;
}
