// SPDX-License-Identifier: MIT
#include "journal.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "test_env.h"

namespace stallwatch::collector {
namespace {

// A record body the reader takes as a frame: 4 bytes, the protocol's file
// identifier, then `text` (the batch itself is the decoder's to judge).
std::string framed(const std::string& text) {
  return std::string("\x10\0\0\0SWTC", 8) + text;
}

std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::vector<std::pair<std::string, std::int64_t>> read_all(const std::string& dir) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& seg : journal_segments(dir)) {
    const auto read =
        read_journal_segment(seg, [&](std::span<const std::uint8_t> f, std::int64_t t) {
          out.emplace_back(std::string(f.begin() + 8, f.end()), t);
        });
    EXPECT_EQ(read.error, "");
  }
  return out;
}

TEST(Journal, RoundTripsFramesInOrder) {
  test::TempDir dir;
  {
    JournalWriter w(dir.path() + "/j", 1ull << 30);
    ASSERT_EQ(w.open(), "");
    for (int i = 0; i < 100; ++i) {
      w.append(bytes(framed("frame-" + std::to_string(i))), 1000 + i);
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
    const std::string frame = framed(std::string(100, 'x'));
    for (int i = 0; i < 3; ++i) {
      w.append(bytes(frame), i);
    }
  }
  const auto seg = journal_segments(dir.path()).at(0);
  std::filesystem::resize_file(seg, std::filesystem::file_size(seg) - 10);
  EXPECT_EQ(read_all(dir.path()).size(), 2u);
  const auto read = read_journal_segment(seg, [](auto, auto) {});
  EXPECT_EQ(read.records, 2u);
  ASSERT_EQ(read.problems.size(), 1u);
  EXPECT_EQ(read.problems[0].offset, 8u + 2 * (12 + 108));
  EXPECT_NE(describe(seg, read.problems[0]).find(seg + " at offset 248: truncated record"),
            std::string::npos);
}

TEST(Journal, CorruptRecordIsReportedWithItsOffsetAndTheRestIsRead) {
  test::TempDir dir;
  {
    JournalWriter w(dir.path(), 1ull << 30);
    ASSERT_EQ(w.open(), "");
    for (int i = 0; i < 5; ++i)
      w.append(bytes(framed("record-" + std::to_string(i))), i);
  }
  const auto seg = journal_segments(dir.path()).at(0);
  const std::uint64_t record = 12 + 8 + 8;  // header, frame prefix, "record-N"
  {
    // The third record's length is smashed, the fourth's frame identifier too.
    std::fstream f(seg, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(8 + 2 * record));
    f.write("\xff\xff\xff\x7f", 4);
    f.seekp(static_cast<std::streamoff>(8 + 3 * record + 12 + 4));
    f.write("XXXX", 4);
  }
  std::vector<std::string> seen;
  const auto read = read_journal_segment(seg, [&](std::span<const std::uint8_t> f, std::int64_t) {
    seen.emplace_back(f.begin() + 8, f.end());
  });
  EXPECT_EQ(read.error, "");
  EXPECT_EQ(seen, (std::vector<std::string>{"record-0", "record-1", "record-4"}));
  EXPECT_EQ(read.records, 3u);
  EXPECT_EQ(read.skipped_bytes, 2 * record);
  ASSERT_EQ(read.problems.size(), 1u);
  EXPECT_EQ(read.problems[0].offset, 8 + 2 * record);
  EXPECT_NE(read.problems[0].what.find("corrupt record"), std::string::npos);
}

TEST(Journal, RejectsForeignFilesWithTheirName) {
  test::TempDir dir;
  const std::string path = dir.path() + "/segment-1.swj";
  std::ofstream(path) << "not a journal";
  const std::string err = read_journal_segment(path, [](auto, auto) {}).error;
  EXPECT_NE(err.find(path), std::string::npos);
  EXPECT_NE(err.find("bad magic"), std::string::npos);
}

TEST(Journal, RotatesAndKeepsTotalUnderTheLimit) {
  test::TempDir dir;
  const std::string frame = framed(std::string(1 << 20, 'y'));
  {
    JournalWriter w(dir.path(), 2 * JournalWriter::kSegmentBytes);
    ASSERT_EQ(w.open(), "");
    for (int i = 0; i < 200; ++i) {
      w.append(bytes(frame), i + 1);
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

TEST(Journal, SegmentsOlderThanTheAgeBoundAreDeleted) {
  test::TempDir dir;
  const std::int64_t wall_now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
  const std::int64_t now = wall_now - 10'000'000'000;
  {
    JournalWriter w(dir.path(), 1ull << 30);
    ASSERT_EQ(w.open(now - 2), "");
    w.append(bytes(framed("old")), now - 2);
  }
  {
    JournalWriter w(dir.path(), 1ull << 30);
    ASSERT_EQ(w.open(now - 1), "");
    w.append(bytes(framed("newer")), now - 1);
  }
  const auto segments = journal_segments(dir.path());
  ASSERT_EQ(segments.size(), 2u);
  const auto an_hour_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  std::filesystem::last_write_time(segments[0], an_hour_ago);
  // A 30-minute bound: the segment written an hour ago goes, the others stay.
  JournalWriter w(dir.path(), 1ull << 30, 1'800'000'000'000);
  ASSERT_EQ(w.open(wall_now), "");
  const auto kept = journal_segments(dir.path());
  EXPECT_EQ(kept.size(), 2u);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), segments[0]), 0);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), segments[1]), 1);
}

TEST(Journal, FailedWritesAreCountedAndTheWriterResumes) {
  test::TempDir dir;
  JournalWriter w(dir.path(), 1ull << 30);
  ASSERT_EQ(w.open(1), "");
  w.append(bytes(framed("a")), 1);
  w.flush();
  EXPECT_EQ(w.records_written(), 1u);
  // A file size limit of 1 byte: every write fails (EFBIG, SIGXFSZ ignored),
  // as on a full disk.
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit tiny = saved;
  tiny.rlim_cur = 1;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &tiny), 0);
  w.append(bytes(framed("b")), 2);
  w.flush();
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.last_error().find("File too large"), std::string::npos) << w.last_error();
  w.append(bytes(framed("c")), 3);
  w.maintain(JournalWriter::kRetryNs);  // the retry fails too
  EXPECT_FALSE(w.ok());
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &saved), 0);
  ::signal(SIGXFSZ, old_handler);
  w.append(bytes(framed("d")), 4);
  EXPECT_EQ(w.records_unwritten(), 3u);
  w.maintain(JournalWriter::kRetryNs + 1);  // too soon after the last retry
  EXPECT_FALSE(w.ok());
  w.maintain(2 * JournalWriter::kRetryNs);
  ASSERT_TRUE(w.ok());
  w.append(bytes(framed("e")), 5);
  w.flush();
  EXPECT_EQ(w.records_written(), 2u);
  EXPECT_EQ(w.records_unwritten(), 3u);
  std::vector<std::string> frames;
  for (const auto& [frame, t] : read_all(dir.path()))
    frames.push_back(frame);
  EXPECT_EQ(frames, (std::vector<std::string>{"a", "e"}));
}

TEST(Journal, UnwritableDirectoryIsAnErrorValue) {
  JournalWriter w("/proc/stallwatch-cannot-exist", 1ull << 30);
  EXPECT_NE(w.open(), "");
  EXPECT_FALSE(w.ok());
}

}  // namespace
}  // namespace stallwatch::collector
