// SPDX-License-Identifier: MIT
#include "json_object_scanner.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "input_file.h"
#include "kineto_element.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

struct Scan {
  std::vector<std::string> members;   // key=value
  std::vector<std::string> elements;  // raw text
  std::string error;
  std::size_t read = 0;  // elements the element reader measured
};

Scan scan(const std::string& path, std::size_t chunk_bytes,
          JsonObjectScanner::ElementReader reader = nullptr) {
  Scan out;
  std::string error;
  auto file = InputFile::open(path, error);
  if (!file) {
    out.error = error;
    return out;
  }
  JsonObjectScanner scanner(*file, "traceEvents", chunk_bytes);
  if (reader != nullptr) scanner.set_element_reader(reader, nullptr);
  for (;;) {
    const auto item = scanner.next();
    if (item == JsonObjectScanner::Item::kEnd) break;
    if (item == JsonObjectScanner::Item::kError) {
      out.error = scanner.error();
      break;
    }
    if (item == JsonObjectScanner::Item::kMember) {
      out.members.push_back(std::string(scanner.key()) + "=" + std::string(scanner.text()));
    } else {
      out.elements.emplace_back(scanner.text());
      out.read += scanner.element_read() ? 1 : 0;
    }
  }
  return out;
}

// The Kineto reader's element reader: the hand-written parser on the front
// of the buffered bytes.
std::size_t kineto_prefix(std::string_view rest, void*) {
  TraceEvent event;
  KinetoElement element;
  std::size_t length = 0;
  return parse_kineto_element_fast_prefix(rest, event, element, length) ? length : 0;
}

// A JSON string body that stresses the scanner: brackets, escaped quotes,
// runs of backslashes, and multi-byte UTF-8.
std::string random_string(std::mt19937& rng) {
  static const char* const kPieces[] = {"a",        "{", "}", "[", "]",   "\\\"",     "\\\\",
                                        "\\\\\\\"", ",", ":", " ", "\\n", "\xc3\xa9", "xyz"};
  std::uniform_int_distribution<int> count(0, 12);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kPieces) - 1);
  std::string s;
  for (int n = count(rng); n > 0; --n)
    s += kPieces[pick(rng)];
  return s;
}

std::string random_value(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 2 : 4);
  switch (kind(rng)) {
    case 0:
      return "\"" + random_string(rng) + "\"";
    case 1:
      return std::to_string(rng() % 100000) + ".25";
    case 2:
      return "true";
    case 3: {
      std::string a = "[";
      for (int n = static_cast<int>(rng() % 4); n > 0; --n)
        a += random_value(rng, depth + 1) + (n > 1 ? ", " : "");
      return a + "]";
    }
    default: {
      std::string o = "{";
      for (int n = static_cast<int>(rng() % 4); n > 0; --n)
        o += "\"" + random_string(rng) + "\": " + random_value(rng, depth + 1) + (n > 1 ? "," : "");
      return o + "}";
    }
  }
}

TEST(JsonObjectScanner, ElementsComeOutExactlyWhateverTheChunkSize) {
  TempDir dir;
  std::mt19937 rng(25);
  std::vector<std::string> elements;
  std::string doc = "{\"schemaVersion\": 1, \"note\": \"}]\\\"{[\", \"traceEvents\": [\n";
  for (int i = 0; i < 400; ++i) {
    std::string e = "{\"name\": \"" + random_string(rng) + "\", \"args\": " + random_value(rng, 1) +
                    ", \"k" + random_string(rng) + "\": [" + random_value(rng, 2) + "]}";
    elements.push_back(e);
    doc += (i ? ",\n  " : "  ") + e;
  }
  doc += "\n], \"tail\": {\"x\": [1, {\"y\": \"]\"}]}}\n";
  for (bool gzip : {false, true}) {
    const std::string path = dir.write(gzip ? "t.json.gz" : "t.json", doc, gzip);
    for (std::size_t chunk : {std::size_t{1}, std::size_t{17}, std::size_t{64}, std::size_t{65},
                              std::size_t{1000}, std::size_t{256} << 10}) {
      const Scan s = scan(path, chunk);
      EXPECT_EQ(s.error, "") << chunk;
      ASSERT_EQ(s.elements.size(), elements.size()) << chunk;
      for (std::size_t i = 0; i < elements.size(); ++i)
        ASSERT_EQ(s.elements[i], elements[i]) << "chunk " << chunk << " element " << i;
      ASSERT_EQ(s.members.size(), 3u);
      EXPECT_EQ(s.members[1], "note=\"}]\\\"{[\"");
      EXPECT_EQ(s.members[2], "tail={\"x\": [1, {\"y\": \"]\"}]}");
    }
  }
}

// An element reader measures the elements it can read whole from the
// buffer; the scanner measures the rest (escapes, an element cut by the end
// of the buffer, a reader that claims more than there is). The split is the
// same either way.
TEST(JsonObjectScanner, AnElementReaderChangesNothingInTheSplit) {
  TempDir dir;
  std::mt19937 rng(26);
  std::string doc = "{\"traceEvents\": [\n";
  for (int i = 0; i < 400; ++i) {
    std::string e =
        i % 3 == 0
            ? "{\"name\": \"" + random_string(rng) + "\", \"args\": " + random_value(rng, 1) + "}"
            : "{\"ph\": \"X\", \"name\": \"op" + std::to_string(i) +
                  "\", \"ts\": " + std::to_string(i) + ".5, \"args\": {\"a\": [" +
                  std::to_string(i) + ", {\"b\": null}]}}";
    doc += (i ? ",\n  " : "  ") + e;
  }
  doc += "\n], \"tail\": {\"x\": 1}}\n";
  const std::string path = dir.write("t.json", doc);
  auto greedy = [](std::string_view rest, void*) -> std::size_t { return rest.size() + 1; };
  for (std::size_t chunk : {std::size_t{17}, std::size_t{1000}, std::size_t{256} << 10}) {
    const Scan plain = scan(path, chunk);
    const Scan measured = scan(path, chunk, &kineto_prefix);
    ASSERT_EQ(plain.error, "");
    EXPECT_EQ(measured.error, "");
    EXPECT_EQ(measured.elements, plain.elements) << chunk;
    EXPECT_EQ(measured.members, plain.members) << chunk;
    EXPECT_EQ(plain.read, 0u);
    // Two in three elements are the reader's kind; the others have escapes.
    if (chunk > 1000) {
      EXPECT_GE(measured.read, 260u) << chunk;
    }
    EXPECT_LT(measured.read, plain.elements.size()) << chunk;
    const Scan refused = scan(path, chunk, greedy);
    EXPECT_EQ(refused.elements, plain.elements) << chunk;
    EXPECT_EQ(refused.read, 0u);
  }
}

TEST(JsonObjectScanner, BackslashRunsEndOrEscapeTheStringByTheirParity) {
  TempDir dir;
  // Element 0 ends its string after an even run (\\\\), element 1 escapes a
  // quote with an odd run (\\\\\\"), padded so runs straddle 64-byte blocks.
  for (std::size_t pad = 0; pad < 70; ++pad) {
    const std::string e0 = "{\"a\": \"" + std::string(pad, 'x') + "\\\\\\\\\"}";
    const std::string e1 = "{\"b\": \"" + std::string(pad, 'y') + "\\\\\\\"}\"}";
    const std::string doc = "{\"traceEvents\": [" + e0 + ", " + e1 + "]}";
    const Scan s = scan(dir.write("b.json", doc), 1u << 20);
    ASSERT_EQ(s.error, "") << pad;
    ASSERT_EQ(s.elements.size(), 2u) << pad;
    EXPECT_EQ(s.elements[0], e0) << pad;
    EXPECT_EQ(s.elements[1], e1) << pad;
  }
}

TEST(JsonObjectScanner, AnElementCutOffByTheEndOfTheFileIsATruncatedDocument) {
  TempDir dir;
  const Scan s = scan(dir.write("cut.json", "{\"traceEvents\": [{\"a\": 1}, {\"b\": \"}\""), 64);
  ASSERT_EQ(s.elements.size(), 1u);
  EXPECT_EQ(s.elements[0], "{\"a\": 1}");
  EXPECT_EQ(s.error, "truncated JSON document");
}

}  // namespace
}  // namespace stallwatch::collector
