// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as a journal segment (read_journal_bytes).
// Sanitizers catch memory errors; on top, the target aborts unless every
// byte after the magic is accounted for exactly once, in an intact record
// handed to the visitor or in a reported problem, the problems' offsets
// increase, and every frame handed over carries the protocol's identifier.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "ingest/journal_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stallwatch::collector;
  std::uint64_t record_bytes = 0;
  const auto read =
      read_journal_bytes(std::span<const std::uint8_t>(data, size),
                         [&](std::span<const std::uint8_t> frame, std::int64_t) {
                           if (frame.size() < 8 || std::memcmp(frame.data() + 4, "SWTC", 4) != 0)
                             std::abort();
                           record_bytes += kJournalRecordHeader + frame.size();
                         });
  if (!read.error.empty()) {
    if (read.records != 0 || !read.problems.empty()) std::abort();
    return 0;
  }
  if (record_bytes + read.skipped_bytes + sizeof kJournalMagic != size) std::abort();
  for (std::size_t i = 1; i < read.problems.size(); ++i) {
    if (read.problems[i].offset <= read.problems[i - 1].offset) std::abort();
  }
  return 0;
}
