// SPDX-License-Identifier: MIT
#pragma once

// The journal: every valid frame stallwatchd receives, appended to segment
// files in one directory, so that (1) a restarted daemon restores its
// history and windows, and (2) a past run can be replayed or analysed later
// (`stallwatch replay DIR/*.swj`).
//
// Segment format and reading: ingest/journal_reader.h. Segments rotate at
// kSegmentBytes; maintain() keeps the directory under `max_bytes` and
// deletes segments last written more than `max_age_ns` ago (0: no age
// bound), oldest first, never the one being written.
//
// Records are buffered and written with write(2) by flush(), so the count of
// records that reached the file is exact even when a write stops half way. A
// write that fails (disk full, file size limit, directory gone) closes the
// segment: that record and every later one counts as unwritten until a
// retry, at most once a second from maintain(), opens a new segment. Ingest
// never stops for the journal. The caller says so in the log once per
// outage, from ok() going false and true again.
//
// JournalWriter is confined to the ingest receive thread.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ingest/journal_reader.h"

namespace stallwatch::collector {

class JournalWriter {
 public:
  static constexpr std::uint64_t kSegmentBytes = 64ull << 20;
  static constexpr std::int64_t kRetryNs = 1'000'000'000;

  JournalWriter(std::string dir, std::uint64_t max_bytes, std::int64_t max_age_ns = 0);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Creates the directory if needed and starts a segment named after
  // `now_ns`. Returns "" or what went wrong.
  std::string open(std::int64_t now_ns = 0);
  void append(std::span<const std::uint8_t> frame, std::int64_t recv_ns);
  // Writes buffered records to the file (after every receive round).
  void flush();
  // Retries a failed journal (at most every kRetryNs) and applies the size
  // and age bounds (at most every 10 s).
  void maintain(std::int64_t now_ns);

  bool ok() const { return fd_ >= 0; }
  const std::string& last_error() const { return last_error_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t records_written() const { return records_written_; }
  std::uint64_t records_unwritten() const { return records_unwritten_; }

 private:
  std::string start_segment(std::int64_t first_ns);
  void enforce_limits(std::int64_t now_ns);
  void fail(std::string message);

  std::string dir_;
  std::uint64_t max_bytes_;
  std::int64_t max_age_ns_;
  int fd_ = -1;
  std::string current_path_;
  std::uint64_t segment_bytes_ = 0;  // written and buffered
  std::vector<std::uint8_t> buffer_;
  std::vector<std::size_t> record_ends_;  // in buffer_
  std::uint64_t bytes_written_ = 0;
  std::uint64_t records_written_ = 0;
  std::uint64_t records_unwritten_ = 0;
  std::int64_t last_retry_ns_ = 0;
  std::int64_t last_limits_ns_ = 0;
  std::string last_error_;
};

// Segment files of a journal directory, oldest first.
std::vector<std::string> journal_segments(const std::string& dir);

}  // namespace stallwatch::collector
