#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ingest/decoded_batch.h"
#include "ingest/frame_error.h"
#include "ingest/ingest_stats.h"
#include "ingest/name_table.h"

namespace stallwatch::collector {

// BatchDecoder turns one untrusted frame into a DecodedBatch: it runs
// FrameValidator, and for an accepted frame copies the source and events into
// the caller's reused DecodedBatch, with the batch's names interned in the
// NameTable so that events carry collector-wide NameIds.
//
// The daemon's ingest loop feeds it every frame from the Receiver (see the
// wiring at the top of ingest/receiver.h) and hands accepted batches to the
// engine; a rejected frame is already counted, the caller only logs it
// (rate-limited).
//
// Counts every frame in stats(): received, bytes, events, invalid by reason.
// Allocation-free per event once the DecodedBatch and the per-batch string map
// have grown to the largest batch seen (names already interned); a frame whose
// address is not 8-byte aligned (ZeroMQ hands out such frames) is first copied
// into a reused aligned buffer.
//
// Not thread-safe: one owner thread. decode() writes to the NameTable, so it
// runs wherever that table may be written (stallwatchd: under the engine's
// lock). Holds a reference to the NameTable, which must outlive it.
class BatchDecoder {
 public:
  explicit BatchDecoder(NameTable& names);

  // On success fills `out` (replacing its previous content) and returns
  // nullopt. On failure returns why; `out` is then unspecified.
  std::optional<FrameError> decode(std::span<const std::uint8_t> frame, DecodedBatch& out);

  const IngestStats& stats() const { return stats_; }

 private:
  std::span<const std::uint8_t> aligned(std::span<const std::uint8_t> frame);

  NameTable& names_;
  IngestStats stats_;
  std::vector<NameId> string_ids_;      // wire string index -> NameId, per batch
  std::vector<std::uint64_t> aligned_;  // copy of an unaligned frame
};

}  // namespace stallwatch::collector
