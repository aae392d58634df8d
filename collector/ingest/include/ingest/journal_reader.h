// SPDX-License-Identifier: MIT
#pragma once

// Reading stallwatchd's journal segments (`*.swj`): the daemon restores its
// windows from them, `stallwatch replay DIR/*.swj` sends them into a daemon.
//
// Segment format: the 8-byte magic "SWJ1\0\0\0\0", then records of
// [u32 little-endian frame length][i64 little-endian receive time ns][frame].
//
// read_journal_segment() hands every intact record to `visit` in file order.
// A record is intact when its length lies in [8, wire::kMaxFrameBytes], it
// fits in the file, and its frame carries the protocol's file identifier
// ("SWTC"); whether the frame is a valid batch is for the caller's decoder
// to judge. A record that is not intact is reported with its offset and
// skipped: the reader looks for the next intact record after it and goes on
// from there, so one bad record costs only itself. A record cut off by the
// end of the file (a crash mid-write) is reported too. Stateless; any thread.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace stallwatch::collector {

inline constexpr char kJournalMagic[8] = {'S', 'W', 'J', '1', 0, 0, 0, 0};
inline constexpr std::size_t kJournalRecordHeader = 12;

struct JournalProblem {
  std::uint64_t offset = 0;  // of the bad record's header in the file
  std::string what;          // "truncated record", "corrupt record (...)"
};

struct JournalSegmentRead {
  std::string error;  // unreadable or not a journal (bad magic): nothing was read
  std::uint64_t records = 0;
  std::uint64_t skipped_bytes = 0;  // bytes of records not intact
  std::vector<JournalProblem> problems;
};

using JournalVisitor =
    std::function<void(std::span<const std::uint8_t> frame, std::int64_t recv_ns)>;

JournalSegmentRead read_journal_segment(const std::string& path, const JournalVisitor& visit);
// The same over a segment's bytes in memory (error without a path).
JournalSegmentRead read_journal_bytes(std::span<const std::uint8_t> bytes,
                                      const JournalVisitor& visit);

// "PATH at offset N: WHAT", as problems are reported to people.
std::string describe(const std::string& path, const JournalProblem& problem);

}  // namespace stallwatch::collector
