// SPDX-License-Identifier: MIT
#include "ingest/journal_reader.h"

#include <stallwatch/protocol.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace stallwatch::collector {
namespace {

constexpr char kFileIdentifier[4] = {'S', 'W', 'T', 'C'};
constexpr std::size_t kMinFrameBytes = 8;

std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= std::uint32_t{p[i]} << (8 * i);
  return v;
}

std::int64_t get_i64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= std::uint64_t{p[i]} << (8 * i);
  return static_cast<std::int64_t>(v);
}

enum class RecordState { kIntact, kTruncated, kCorrupt };

RecordState record_at(std::span<const std::uint8_t> data, std::size_t pos, std::uint32_t& len) {
  if (data.size() - pos < kJournalRecordHeader) return RecordState::kTruncated;
  len = get_u32(data.data() + pos);
  if (len < kMinFrameBytes || len > wire::kMaxFrameBytes) return RecordState::kCorrupt;
  const std::size_t frame = pos + kJournalRecordHeader;
  if (data.size() - frame < len) return RecordState::kTruncated;
  if (std::memcmp(data.data() + frame + 4, kFileIdentifier, sizeof kFileIdentifier) != 0) {
    return RecordState::kCorrupt;
  }
  return RecordState::kIntact;
}

}  // namespace

JournalSegmentRead read_journal_segment(const std::string& path, const JournalVisitor& visit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    JournalSegmentRead out;
    out.error = path + ": " + std::strerror(errno);
    return out;
  }
  const std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
  JournalSegmentRead out = read_journal_bytes(data, visit);
  if (!out.error.empty()) out.error = path + ": " + out.error;
  return out;
}

JournalSegmentRead read_journal_bytes(std::span<const std::uint8_t> bytes,
                                      const JournalVisitor& visit) {
  JournalSegmentRead out;
  if (bytes.size() < sizeof kJournalMagic ||
      std::memcmp(bytes.data(), kJournalMagic, sizeof kJournalMagic) != 0) {
    out.error = "not a stallwatch journal segment (bad magic)";
    return out;
  }
  std::vector<std::uint8_t> frame;  // heap memory: aligned as FlatBuffers needs
  std::size_t pos = sizeof kJournalMagic;
  while (pos < bytes.size()) {
    std::uint32_t len = 0;
    const RecordState state = record_at(bytes, pos, len);
    if (state == RecordState::kIntact) {
      const auto* begin = bytes.data() + pos + kJournalRecordHeader;
      frame.assign(begin, begin + len);
      visit(frame, get_i64(bytes.data() + pos + 4));
      ++out.records;
      pos += kJournalRecordHeader + len;
      continue;
    }
    // Not intact: find the next intact record, if any, and go on from there.
    std::size_t next = pos + 1;
    for (std::uint32_t l = 0; next < bytes.size(); ++next) {
      if (record_at(bytes, next, l) == RecordState::kIntact) break;
    }
    const bool last = next >= bytes.size();
    out.problems.push_back(
        {pos, state == RecordState::kTruncated && last
                  ? "truncated record (" + std::to_string(bytes.size() - pos) + " bytes at the end)"
                  : "corrupt record (" + std::to_string(next - pos) + " bytes skipped)"});
    out.skipped_bytes += next - pos;
    pos = next;
  }
  return out;
}

std::string describe(const std::string& path, const JournalProblem& problem) {
  return path + " at offset " + std::to_string(problem.offset) + ": " + problem.what;
}

}  // namespace stallwatch::collector
