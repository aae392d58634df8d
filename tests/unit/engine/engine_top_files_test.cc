// SPDX-License-Identifier: MIT
// Top files by I/O time: a rank's POSIX and stdio calls summed per file (named
// by posix_file marks) and window, most time first, with an "other" row.

#include <gtest/gtest.h>

#include <ostream>

#include "file_io_tracker.h"
#include "test_batches.h"

namespace stallwatch::collector {

void PrintTo(const FileIoEntry& f, std::ostream* os) {
  *os << "{'" << f.path << "', " << f.io_ns << " ns, " << f.read_bytes << " B read, "
      << f.write_bytes << " B written, " << f.ops << " calls}";
}

namespace testing {
namespace {

const TopFiles& top(const RankSnapshot& r, std::int64_t window_ns) {
  for (const TopFiles& t : r.top_files) {
    if (t.window_ns == window_ns) return t;
  }
  ADD_FAILURE() << "no top files for window " << window_ns;
  static const TopFiles kNone;
  return kNone;
}

TEST(EngineTopFiles, MostTimeFirstWithBytesAndCalls) {
  Harness h(small_config());
  auto main = h.source(100);
  main.file_name("/data/a", 1, kT0).file_name("/data/b", 2, kT0);
  main.call("POSIX", "openat", kT0 + ms(1), us(100), 1, 0)
      .call("POSIX", "read", kT0 + ms(2), ms(2), 1, 4096)
      .call("POSIX", "read", kT0 + ms(5), ms(2), 1, 1000)
      .call("STDIO", "fwrite", kT0 + ms(8), ms(1), 2, 50)
      .call("POSIX", "close", kT0 + ms(9), us(10), 1, 0);
  h.send(main.take(kT0 + ms(20)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(20)), "job", 0);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->top_files.size(), 3u);  // the configured windows and the totals
  EXPECT_EQ(r->top_files.back().window_ns, 0);
  const TopFiles& t = top(*r, ms(30));
  ASSERT_EQ(t.files.size(), 2u);
  EXPECT_EQ(t.files[0], (FileIoEntry{"/data/a", ms(4) + us(110), 5096, 0, 4}));
  EXPECT_EQ(t.files[1], (FileIoEntry{"/data/b", ms(1), 0, 50, 1}));
  EXPECT_EQ(t.other, FileIoEntry{});
  // The 10 ms window [10, 20) ms holds none of them: every call ended before.
  EXPECT_TRUE(top(*r, ms(10)).files.empty());
  // The totals hold them all, pending or not.
  EXPECT_EQ(top(*r, 0).files, t.files);
  EXPECT_EQ(top(*r, 0).other, t.other);
}

TEST(EngineTopFiles, ALongCallCountsWholeAtItsEndAndAnOpenOneNotYet) {
  Harness h(small_config());
  auto main = h.source(100);
  main.file_name("/slow", 7, kT0)
      .begin("POSIX", "read", kT0 + ms(2), 1, 0, 7)
      .begin("POSIX", "read", kT0 + ms(3), 2, 0, 7);
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  EXPECT_TRUE(top(*r, ms(30)).files.empty()) << "calls still open count nowhere";
  main.end(kT0 + ms(14), 1, 0, 8192);
  h.send(main.take(kT0 + ms(16)));
  r = find_rank(*h.tick(kT0 + ms(16)), "job", 0);
  // The whole call (12 ms), in the 10 ms window of its end.
  EXPECT_EQ(top(*r, ms(10)).files, (std::vector<FileIoEntry>{{"/slow", ms(12), 8192, 0, 1}}));
}

TEST(EngineTopFiles, AWorkerReadsWhatItsParentNamedAndAnUnnamedIdIsUnknown) {
  Harness h(small_config());
  auto main = h.source(100);
  auto worker = h.source(101, ProcessRole::kWorker);
  worker.source().ppid = 100;
  main.file_name("/opened/before/fork", 3, kT0);
  worker.call("POSIX", "read", kT0 + ms(1), ms(2), 3, 10)
      .call("POSIX", "read", kT0 + ms(4), ms(1), 9, 20);
  h.send(worker.take(kT0 + ms(10)));
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  EXPECT_EQ(top(*r, ms(10)).files, (std::vector<FileIoEntry>{
                                       {"/opened/before/fork", ms(2), 10, 0, 1},
                                       {"<unknown file>", ms(1), 20, 0, 1},
                                   }));
}

// 1 000 files, each read once in one of 50 cells: a finalized cell keeps its
// top files and one "other" row, and nothing is lost from the sums.
TEST(EngineTopFiles, ManyFilesAreBoundedPerCellAndSumExactly) {
  EngineConfig c = small_config();
  c.top_files_per_cell = 3;
  c.max_files_per_source = 2000;
  c.windows_ns = {ms(50)};
  c.verdict_window_ns = ms(50);
  c.history_ns = ms(60);
  Harness h(c);
  auto main = h.source(100);
  std::int64_t total_ns = 0;
  for (std::uint32_t f = 1; f <= 1000; ++f) {
    const std::int64_t at = kT0 + us(50 * (f - 1));  // 20 per 1 ms cell
    main.file_name("/f/" + std::to_string(f), f, at);
    main.call("POSIX", "read", at, us(f % 7 + 1), f, f);
    total_ns += us(f % 7 + 1);
  }
  h.send(main.take(kT0 + ms(50)));
  h.send(main.take(kT0 + ms(60)));  // finalizes [0, 55) ms
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(60)), "job", 0);
  const TopFiles& t = top(*r, ms(50));
  ASSERT_EQ(t.files.size(), TopFiles::kTopFilesShown);
  std::int64_t ns = t.other.io_ns, ops = t.other.ops, bytes = t.other.read_bytes;
  for (const FileIoEntry& f : t.files) {
    ns += f.io_ns;
    ops += f.ops;
    bytes += f.read_bytes;
    EXPECT_EQ(f.io_ns, us(7)) << f.path;  // the longest calls: f % 7 == 6
  }
  // The window [10, 60) ms holds the calls of files 201-1000.
  std::int64_t want_ns = 0, want_bytes = 0;
  for (std::int64_t f = 201; f <= 1000; ++f) {
    want_ns += us(f % 7 + 1);
    want_bytes += f;
  }
  EXPECT_EQ(ns, want_ns);
  EXPECT_EQ(ops, 800);
  EXPECT_EQ(bytes, want_bytes);
  EXPECT_GT(total_ns, want_ns);
}

TEST(FileIoTracker, AFinalizedCellKeepsItsTopFilesAndOneOtherRow) {
  detail::FileIoTracker files(ms(1), 4, 100);
  for (std::uint32_t f = 0; f < 10'000; ++f)
    files.add(kT0 + us(f % 100 * 10), detail::FileKey{0, f + 1}, f, detail::IoDirection::kRead, 1);
  EXPECT_EQ(files.pending(), 10'000u);
  const std::int64_t cell = kT0 / ms(1);
  files.finalize(cell, cell + 1, cell);
  EXPECT_EQ(files.pending(), 0u);
  EXPECT_EQ(files.finalized_rows(), 5u);
  std::int64_t ops = 0, ns = 0;
  std::vector<std::uint32_t> kept;
  files.for_each_row(cell, cell + 1, cell + 1, [&](const detail::FileIoRow& row) {
    ops += row.sums.ops;
    ns += row.sums.io_ns;
    if (!row.other) kept.push_back(row.key.file);
  });
  EXPECT_EQ(ops, 10'000);
  EXPECT_EQ(ns, 9'999LL * 10'000 / 2);
  EXPECT_EQ(kept, (std::vector<std::uint32_t>{10'000, 9'999, 9'998, 9'997}));
  files.trim(cell + 1);
  EXPECT_EQ(files.finalized_rows(), 0u);
  // The totals keep the first 100 files finalized exactly, the rest in "other".
  EXPECT_EQ(files.total_rows(), 101u);
  ops = 0;
  ns = 0;
  kept.clear();
  files.for_each_total_row(cell + 1, [&](const detail::FileIoRow& row) {
    ops += row.sums.ops;
    ns += row.sums.io_ns;
    if (!row.other) kept.push_back(row.key.file);
  });
  EXPECT_EQ(ops, 10'000);
  EXPECT_EQ(ns, 9'999LL * 10'000 / 2);
  ASSERT_EQ(kept.size(), 100u);
  EXPECT_EQ(kept.front(), 1u);
  EXPECT_EQ(kept.back(), 100u);
}

// The totals are exact since the rank's start, long after the windows and
// the history have let go of the calls, and bounded: a file past
// top_files_total_files goes to "other", the ones kept keep counting.
TEST(EngineTopFiles, TotalsAreExactSinceTheStartAndBounded) {
  EngineConfig c = small_config();
  c.windows_ns = {ms(10)};
  c.verdict_window_ns = ms(10);
  c.history_ns = ms(20);
  c.top_files_per_cell = 1;
  c.top_files_total_files = 2;
  c.top_files_shown = 2;
  Harness h(c);
  auto main = h.source(100);
  main.file_name("/a", 1, kT0).file_name("/b", 2, kT0).file_name("/c", 3, kT0);
  // 100 ms of calls: /a 2 ms and /b 1 ms every 10 ms from the start, /c
  // (first finalized after them) 4 ms every 10 ms from 50 ms on.
  std::int64_t c_ns = 0;
  for (int i = 0; i < 10; ++i) {
    const std::int64_t at = kT0 + ms(10 * i + 5);
    main.call("POSIX", "read", at, ms(2), 1, 100).call("POSIX", "write", at, ms(1), 2, 10);
    if (i >= 5) {
      main.call("POSIX", "read", at, ms(4), 3, 1);
      c_ns += ms(4);
    }
    h.send(main.take(at + ms(5)));
    h.tick(at + ms(5));
  }
  h.send(main.take(kT0 + ms(130)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(130)), "job", 0);
  ASSERT_NE(r, nullptr);
  const TopFiles& totals = top(*r, 0);
  EXPECT_EQ(totals.files,
            (std::vector<FileIoEntry>{{"/a", ms(20), 1000, 0, 10}, {"/b", ms(10), 0, 100, 10}}));
  EXPECT_EQ(totals.other, (FileIoEntry{"", c_ns, 5, 0, 5}));
  // The 10 ms window [120, 130) ms has no calls left.
  EXPECT_TRUE(top(*r, ms(10)).files.empty());
}

TEST(EngineTopFiles, TheShownCountIsConfigured) {
  EngineConfig c = small_config();
  c.top_files_shown = 1;
  Harness h(c);
  auto main = h.source(100);
  main.file_name("/a", 1, kT0).file_name("/b", 2, kT0);
  main.call("POSIX", "read", kT0 + ms(2), ms(2), 1, 1)
      .call("POSIX", "read", kT0 + ms(3), ms(1), 2, 2);
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  for (std::int64_t w : {ms(10), std::int64_t{0}}) {
    EXPECT_EQ(top(*r, w).files, (std::vector<FileIoEntry>{{"/a", ms(2), 1, 0, 1}}));
    EXPECT_EQ(top(*r, w).other, (FileIoEntry{"", ms(1), 2, 0, 1}));
  }
}

TEST(EngineTopFiles, ASourceNamesAtMostMaxFilesPerSource) {
  EngineConfig c = small_config();
  c.max_files_per_source = 2;
  Harness h(c);
  auto main = h.source(100);
  main.file_name("/a", 1, kT0).file_name("/b", 2, kT0).file_name("/c", 3, kT0);
  main.file_name("/a2", 1, kT0 + ms(1));  // a known id may be renamed
  main.call("POSIX", "read", kT0 + ms(2), ms(3), 3, 1)
      .call("POSIX", "read", kT0 + ms(2), ms(2), 1, 1);
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  EXPECT_EQ(top(*r, ms(10)).files, (std::vector<FileIoEntry>{
                                       {"<unknown file>", ms(3), 1, 0, 1},
                                       {"/a2", ms(2), 1, 0, 1},
                                   }));
}

}  // namespace
}  // namespace testing
}  // namespace stallwatch::collector
