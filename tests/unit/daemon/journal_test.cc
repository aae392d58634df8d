// SPDX-License-Identifier: MIT
#include "journal.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_env.h"

namespace stallwatch::collector {
namespace {

std::vector<std::pair<std::string, std::int64_t>> read_all(const std::string& dir) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& seg : journal_segments(dir)) {
    EXPECT_EQ(read_journal_segment(seg,
                                   [&](std::span<const std::uint8_t> f, std::int64_t t) {
                                     out.emplace_back(std::string(f.begin(), f.end()), t);
                                   }),
              "");
  }
  return out;
}

TEST(Journal, RoundTripsFramesInOrder) {
  test::TempDir dir;
  {
    JournalWriter w(dir.path() + "/j", 1ull << 30);
    ASSERT_EQ(w.open(), "");
    for (int i = 0; i < 100; ++i) {
      const std::string frame = "frame-" + std::to_string(i);
      w.append({reinterpret_cast<const std::uint8_t*>(frame.data()), frame.size()}, 1000 + i);
    }
    w.flush();
    EXPECT_TRUE(w.ok());
  }
  const auto frames = read_all(dir.path() + "/j");
  ASSERT_EQ(frames.size(), 100u);
  EXPECT_EQ(frames[0].first, "frame-0");
  EXPECT_EQ(frames[99].first, "frame-99");
  EXPECT_EQ(frames[42].second, 1042);
}

TEST(Journal, TornTailIsIgnoredNotFatal) {
  test::TempDir dir;
  {
    JournalWriter w(dir.path(), 1ull << 30);
    ASSERT_EQ(w.open(), "");
    const std::string frame(100, 'x');
    for (int i = 0; i < 3; ++i) {
      w.append({reinterpret_cast<const std::uint8_t*>(frame.data()), frame.size()}, i);
    }
  }
  const auto seg = journal_segments(dir.path()).at(0);
  std::filesystem::resize_file(seg, std::filesystem::file_size(seg) - 10);
  EXPECT_EQ(read_all(dir.path()).size(), 2u);
}

TEST(Journal, RejectsForeignFilesWithTheirName) {
  test::TempDir dir;
  const std::string path = dir.path() + "/segment-1.swj";
  std::ofstream(path) << "not a journal";
  const std::string err = read_journal_segment(path, [](auto, auto) {});
  EXPECT_NE(err.find(path), std::string::npos);
  EXPECT_NE(err.find("bad magic"), std::string::npos);
}

TEST(Journal, RotatesAndKeepsTotalUnderTheLimit) {
  test::TempDir dir;
  const std::string frame(1 << 20, 'y');
  {
    JournalWriter w(dir.path(), 2 * JournalWriter::kSegmentBytes);
    ASSERT_EQ(w.open(), "");
    for (int i = 0; i < 200; ++i) {
      w.append({reinterpret_cast<const std::uint8_t*>(frame.data()), frame.size()}, i + 1);
    }
    w.flush();
  }
  const auto segments = journal_segments(dir.path());
  EXPECT_GE(segments.size(), 2u);
  std::uint64_t total = 0;
  for (const auto& s : segments)
    total += std::filesystem::file_size(s);
  EXPECT_LE(total, 2 * JournalWriter::kSegmentBytes + JournalWriter::kSegmentBytes);
  const auto frames = read_all(dir.path());
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back().second, 200);  // the newest data survives
}

TEST(Journal, UnwritableDirectoryIsAnErrorValue) {
  JournalWriter w("/proc/stallwatch-cannot-exist", 1ull << 30);
  EXPECT_NE(w.open(), "");
  EXPECT_FALSE(w.ok());
}

}  // namespace
}  // namespace stallwatch::collector
