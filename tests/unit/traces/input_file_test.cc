// SPDX-License-Identifier: MIT
#include "input_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "trace_files.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

// Text that compresses into several deflate blocks and past a 32 KiB window.
std::string sample_text(int lines) {
  std::string text;
  for (int i = 0; i < lines; ++i) {
    text += R"({"ph":"X","cat":"kernel","name":"gemm_)" + std::to_string(i % 97) + R"(","ts":)" +
            std::to_string(1000 + 3 * i) + R"(,"dur":)" + std::to_string(i % 13) + "}\n";
  }
  return text;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_bytes(const TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

struct Drained {
  std::string text;
  std::string error;
  bool compressed = false;
};

// Reads the whole file in `step`-byte reads, as the line reader and scanner do.
Drained drain(const std::string& path, std::size_t step) {
  Drained d;
  auto file = InputFile::open(path, d.error);
  if (!file) return d;
  d.compressed = file->compressed();
  std::string buffer(step, '\0');
  for (;;) {
    const std::ptrdiff_t n = file->read(buffer.data(), buffer.size());
    if (n < 0) {
      d.error = file->error();
      break;
    }
    if (n == 0) break;
    d.text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return d;
}

TEST(InputFile, GzipInflatesToThePlainBytesWhateverTheReadSize) {
  TempDir dir;
  const std::string text = sample_text(20000);
  const std::string plain = dir.write("t.json", text);
  const std::string packed = dir.write("t.json.gz", text, true);
  for (std::size_t step :
       {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{1} << 22}) {
    const Drained a = drain(plain, step);
    const Drained b = drain(packed, step);
    EXPECT_EQ(a.error, "");
    EXPECT_EQ(b.error, "");
    EXPECT_FALSE(a.compressed);
    EXPECT_TRUE(b.compressed);
    EXPECT_EQ(a.text, text) << step;
    EXPECT_EQ(b.text, text) << step;
  }
}

TEST(InputFile, ConcatenatedGzipMembersReadAsOneStream) {
  TempDir dir;
  const std::string first = sample_text(3000);
  const std::string second = "{\"tail\":1}\n";
  const std::string bytes = file_bytes(dir.write("a.gz", first, true)) +
                            file_bytes(dir.write("b.gz", second, true)) +
                            file_bytes(dir.write("c.gz", "", true));
  const Drained d = drain(write_bytes(dir, "abc.json.gz", bytes), 1000);
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.text, first + second);
}

TEST(InputFile, ACutOffMemberHandsOutItsBytesThenFails) {
  TempDir dir;
  const std::string text = sample_text(20000);
  const std::string bytes = file_bytes(dir.write("t.gz", text, true));
  const Drained d = drain(write_bytes(dir, "cut.gz", bytes.substr(0, bytes.size() / 2)), 65536);
  EXPECT_NE(d.error.find("truncated gzip data in"), std::string::npos) << d.error;
  EXPECT_NE(d.error.find("cut.gz"), std::string::npos) << d.error;
  EXPECT_GT(d.text.size(), text.size() / 4);
  EXPECT_EQ(d.text, text.substr(0, d.text.size()));
  // A file of the magic bytes alone is cut off too.
  EXPECT_NE(drain(write_bytes(dir, "magic.gz", "\x1f\x8b"), 100).error.find("truncated"),
            std::string::npos);
}

TEST(InputFile, AWrongChecksumOrGarbageAfterAMemberIsCorruptData) {
  TempDir dir;
  const std::string text = sample_text(500);
  std::string bytes = file_bytes(dir.write("t.gz", text, true));
  std::string bad_crc = bytes;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 0x55);
  const Drained crc = drain(write_bytes(dir, "crc.gz", bad_crc), 1 << 20);
  EXPECT_NE(crc.error.find("corrupt gzip data in"), std::string::npos) << crc.error;
  EXPECT_NE(crc.error.find("incorrect data check"), std::string::npos) << crc.error;

  const Drained garbage =
      drain(write_bytes(dir, "garbage.gz", bytes + "this is no gzip member, only text"), 1 << 20);
  EXPECT_EQ(garbage.text, text);
  EXPECT_NE(garbage.error.find("not a gzip member"), std::string::npos) << garbage.error;

  std::string flipped = bytes;
  flipped[20] = static_cast<char>(flipped[20] ^ 0xff);
  EXPECT_NE(drain(write_bytes(dir, "flipped.gz", flipped), 4096).error, "");
}

TEST(InputFile, MissingFilesAndDirectoriesAreNamedErrors) {
  TempDir dir;
  std::string error;
  EXPECT_EQ(InputFile::open(dir.path() + "/none.gz", error), nullptr);
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  EXPECT_EQ(InputFile::open(dir.path(), error), nullptr);
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
}

}  // namespace
}  // namespace stallwatch::collector
