// SPDX-License-Identifier: MIT
#pragma once

// The journal: every valid frame stallwatchd receives, appended to segment
// files in one directory, so that (1) a restarted daemon restores its
// history and windows, and (2) a past run can be replayed or analysed later
// (`stallwatch replay DIR/*.swj`).
//
// Segment format: the 8-byte magic "SWJ1\0\0\0\0", then records of
// [u32 little-endian frame length][i64 little-endian receive time ns][frame].
// A torn tail (crash mid-write) is ignored by the reader. Segments rotate at
// kSegmentBytes and the directory is kept under `max_bytes` by deleting the
// oldest segments.
//
// JournalWriter is confined to the ingest receive thread. Errors disable the writer
// and are reported once through last_error(); ingest never stops for them.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace stallwatch::collector {

class JournalWriter {
 public:
  static constexpr std::uint64_t kSegmentBytes = 64ull << 20;

  JournalWriter(std::string dir, std::uint64_t max_bytes);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Creates the directory if needed. Returns "" or what went wrong.
  std::string open();
  void append(std::span<const std::uint8_t> frame, std::int64_t recv_ns);
  // Pushes buffered records to the OS (after every receive round).
  void flush();

  bool ok() const { return file_ != nullptr; }
  const std::string& last_error() const { return last_error_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  std::string start_segment(std::int64_t first_ns);
  void enforce_limit();
  void fail(std::string message);

  std::string dir_;
  std::uint64_t max_bytes_;
  std::FILE* file_ = nullptr;
  std::string current_path_;
  std::uint64_t segment_bytes_ = 0;
  std::uint64_t bytes_written_ = 0;
  std::string last_error_;
};

// Segment files of a journal directory, oldest first.
std::vector<std::string> journal_segments(const std::string& dir);

// Calls `visit(frame, recv_ns)` for every complete record of a segment, in
// order. Returns "" or an error naming the file (bad magic, unreadable);
// a torn tail is not an error.
std::string read_journal_segment(
    const std::string& path,
    const std::function<void(std::span<const std::uint8_t>, std::int64_t)>& visit);

}  // namespace stallwatch::collector
