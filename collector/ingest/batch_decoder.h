#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ingest/decoded_batch.h"
#include "ingest/frame_error.h"
#include "ingest/ingest_stats.h"
#include "ingest/name_table.h"
#include "ingest/wire_events.h"

namespace stallwatch::collector {

// BatchDecoder turns one untrusted frame into a DecodedBatch: it runs
// FrameValidator, and for an accepted frame copies the source and events into
// the caller's reused DecodedBatch, with the batch's names interned in the
// NameTable so that events carry collector-wide NameIds. The per-event rules
// are checked in the same pass that copies the events (FrameValidator::
// EventLimits), so a frame's events are read once. decode_header() and
// finish() let a caller make that pass itself.
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
// Not thread-safe: one owner thread. Names are interned into the NameTable:
//   - BatchDecoder(names): decode() writes to the table, so it runs wherever
//     the table may be written (replay; the daemon's journal restore, under
//     the engine's lock);
//   - BatchDecoder(names, &names_mutex): decode() may run outside that mutex
//     (stallwatchd's receive thread). It keeps a private cache of the names it
//     has interned and locks names_mutex only for a name it has not seen, so
//     the steady state takes no lock at all.
// Holds references to the NameTable and mutex, which must outlive it.
class BatchDecoder {
 public:
  explicit BatchDecoder(NameTable& names, std::mutex* names_mutex = nullptr);

  // On success fills `out` (replacing its previous content) and returns
  // nullopt. On failure returns why; `out` is then unspecified.
  std::optional<FrameError> decode(std::span<const std::uint8_t> frame, DecodedBatch& out);

  // decode() in two parts, for a caller that reads the events itself
  // (WireEvents, ingest/wire_events.h) instead of taking a copy of each:
  //
  //   WireEvents events;
  //   if (auto error = decoder.decode_header(frame, batch, events)) return *error;
  //   bool bad = false;
  //   for (std::size_t i = 0; i < events.size(); ++i) bad |= events.bad(events.raw(i)); ...
  //   if (auto error = decoder.finish(events, bad)) return *error;
  //
  // decode_header() runs everything but the per-event rules and fills `out`
  // except out.events, which it leaves as they were. finish() counts the
  // frame: with `any_bad` (some event broke a rule) it finds which and
  // returns why, counted as invalid; otherwise its events count as received.
  // Every frame given to decode_header() is counted once, by it when it
  // rejects the frame, else by finish().
  std::optional<FrameError> decode_header(std::span<const std::uint8_t> frame, DecodedBatch& out,
                                          WireEvents& events);
  std::optional<FrameError> finish(const WireEvents& events, bool any_bad);

  const IngestStats& stats() const { return stats_; }

  // Largest number of names the private cache keeps before it starts over.
  static constexpr std::size_t kMaxCachedNames = 1u << 16;

 private:
  std::span<const std::uint8_t> aligned(std::span<const std::uint8_t> frame);
  NameId intern(std::string_view name);

  NameTable& names_;
  std::mutex* names_mutex_;
  IngestStats stats_;
  // Wire string index -> NameId for the current batch; always 65536 entries,
  // so any 16-bit index can be looked up before the batch is known valid.
  std::vector<NameId> string_ids_;
  std::vector<std::uint64_t> aligned_;  // copy of an unaligned frame
  // With names_mutex_: names interned so far (keys view cached_names_).
  std::deque<std::string> cached_names_;
  std::unordered_map<std::string_view, NameId> cache_;
};

}  // namespace stallwatch::collector
