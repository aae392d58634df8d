// SPDX-License-Identifier: MIT
#include "line_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "input_file.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

struct Lines {
  std::vector<std::string> text;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint64_t> numbers;
  std::uint64_t skipped = 0;
  std::uint64_t bytes = 0;
  std::string error;
};

Lines read_lines(const std::string& path, std::size_t chunk_bytes, std::size_t max_line_bytes) {
  Lines out;
  std::string error;
  auto file = InputFile::open(path, error);
  if (!file) {
    out.error = error;
    return out;
  }
  LineReader reader(*file, chunk_bytes, max_line_bytes);
  Line line;
  while (reader.next(line)) {
    out.text.emplace_back(line.text);
    out.offsets.push_back(line.offset);
    out.numbers.push_back(line.number);
  }
  out.skipped = reader.skipped_long_lines();
  out.bytes = reader.bytes();
  out.error = reader.error();
  return out;
}

// Lines of every length from empty to past the first buffer, a file far
// larger than the first buffer, a line that outgrows the chunk size and one
// that outgrows the longest line allowed: every line comes out exactly, at
// its offset and line number, whatever the chunk size, plain or gzip, and only the one too
// long is skipped (and counted).
TEST(LineReader, LinesComeOutExactlyWhateverTheirLengthAndTheChunkSize) {
  TempDir dir;
  std::mt19937 rng(7);
  std::vector<std::string> lines;
  std::vector<std::uint64_t> offsets;
  std::string doc;
  const std::size_t max_line = 300u << 10;
  std::size_t too_long_index = 0;
  for (int i = 0; i < 600; ++i) {
    std::size_t len = rng() % 400;
    if (i == 100) len = LineReader::kFirstChunk + 3;     // past the first buffer
    if (i == 300) len = 200u << 10;                      // past the default chunk
    if (i == 450) len = 600u << 10, too_long_index = i;  // past max_line and every chunk: skipped
    std::string line(len, 'a');
    for (char& c : line)
      c = static_cast<char>('a' + rng() % 26);
    if (i % 7 == 0 && !line.empty()) line.back() = '\r';  // CRLF ends are dropped
    offsets.push_back(doc.size());
    doc += line + "\n";
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  doc += "last line without a newline";
  offsets.push_back(doc.size() - 27);
  lines.emplace_back("last line without a newline");

  for (bool gzip : {false, true}) {
    const std::string path = dir.write(gzip ? "t.pfw.gz" : "t.pfw", doc, gzip);
    for (std::size_t chunk :
         {std::size_t{1}, std::size_t{100}, std::size_t{64} << 10, std::size_t{512} << 10}) {
      const Lines got = read_lines(path, chunk, max_line);
      EXPECT_EQ(got.error, "") << chunk;
      EXPECT_EQ(got.skipped, 1u) << chunk;
      EXPECT_EQ(got.bytes, doc.size()) << chunk;
      ASSERT_EQ(got.text.size(), lines.size() - 1) << chunk;
      for (std::size_t i = 0, j = 0; i < lines.size(); ++i) {
        if (i == too_long_index) continue;
        ASSERT_EQ(got.text[j], lines[i]) << "chunk " << chunk << " line " << i;
        ASSERT_EQ(got.offsets[j], offsets[i]) << "chunk " << chunk << " line " << i;
        ASSERT_EQ(got.numbers[j], i + 1) << "chunk " << chunk;  // skipped lines count
        ++j;
      }
    }
  }
}

TEST(LineReader, AnEmptyFileAndAFileOfOneNewlineHaveNoneAndOneEmptyLine) {
  TempDir dir;
  EXPECT_TRUE(read_lines(dir.write("empty.pfw", ""), 512u << 10, 64u << 20).text.empty());
  const Lines one = read_lines(dir.write("nl.pfw", "\n"), 512u << 10, 64u << 20);
  ASSERT_EQ(one.text.size(), 1u);
  EXPECT_EQ(one.text[0], "");
}

}  // namespace
}  // namespace stallwatch::collector
