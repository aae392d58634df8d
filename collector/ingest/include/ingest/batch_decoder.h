// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/batch_preparer.h"
#include "engine/decoded_batch.h"
#include "engine/name_table.h"
#include "ingest/frame_error.h"
#include "ingest/ingest_stats.h"

namespace stallwatch::collector {

class WireEvents;

// BatchDecoder turns one untrusted frame into a DecodedBatch: it runs
// FrameValidator, and for an accepted frame copies the source and events into
// the caller's reused DecodedBatch, with the batch's names interned in the
// NameTable so that events carry collector-wide NameIds. The per-event rules
// (FrameValidator::EventLimits) are checked in the same pass that reads the
// events, so a frame's events are read once.
//
// Two ways out:
//   decode()           every event copied (trace replay, the journal, tests);
//   decode_prepared()  stallwatchd's receive thread: the events are checked,
//                      decoded and prepared for the engine in one pass
//                      (PreparedBatch, engine/batch_preparer.h), and only
//                      those the engine must walk one by one are copied.
// The engine gives the same results for both (tests/unit/ingest).
//
// Counts every frame in stats(): received, bytes, events, invalid by reason.
// Allocation-free per event once the DecodedBatch and the per-batch string map
// have grown to the largest batch seen (names already interned); a frame whose
// address is not 8-byte aligned (ZeroMQ hands out such frames) is first copied
// into a reused aligned buffer.
//
// Not thread-safe: one owner thread. Names are interned into the NameTable:
//   - BatchDecoder(names): decoding writes to the table, so it runs wherever
//     the table may be written (replay; the daemon's journal restore, under
//     the engine's lock);
//   - BatchDecoder(names, &names_mutex): decoding may run outside that mutex
//     (stallwatchd's receive thread). It keeps a private cache of the names it
//     has interned and locks names_mutex only for a name it has not seen, so
//     the steady state takes no lock at all.
// Holds references to the NameTable and mutex, which must outlive it.
class BatchDecoder {
 public:
  explicit BatchDecoder(NameTable& names, std::mutex* names_mutex = nullptr);
  ~BatchDecoder();
  BatchDecoder(const BatchDecoder&) = delete;
  BatchDecoder& operator=(const BatchDecoder&) = delete;

  // On success fills `out` (replacing its previous content) and returns
  // nullopt. On failure returns why; `out` is then unspecified.
  std::optional<FrameError> decode(std::span<const std::uint8_t> frame, DecodedBatch& out);

  // decode(), with the events prepared for the engine by `preparer` as they
  // are read: `out` receives the header and only the events the engine
  // walks one by one, `prepared` the rest (its Complete regions, most of a
  // batch, are never copied). When the regions cannot be prepared (one ends
  // past sent_at), every event is decoded and prepared as
  // BatchPreparer::prepare does. On failure `out` and `prepared` are
  // unspecified.
  std::optional<FrameError> decode_prepared(std::span<const std::uint8_t> frame,
                                            BatchPreparer& preparer, DecodedBatch& out,
                                            PreparedBatch& prepared);

  // decode_prepared() in its two steps, for a benchmark that times them
  // apart: decode_header() validates all but the per-event rules and fills
  // `out` but its events; prepare_events() then walks the events of that
  // frame (valid while the frame lives). Every frame is counted once, by
  // decode_header() when it rejects the frame, else by prepare_events().
  std::optional<FrameError> decode_header(std::span<const std::uint8_t> frame, DecodedBatch& out);
  std::optional<FrameError> prepare_events(BatchPreparer& preparer, DecodedBatch& out,
                                           PreparedBatch& prepared);

  const IngestStats& stats() const { return stats_; }

  // Largest number of names the private cache keeps before it starts over.
  static constexpr std::size_t kMaxCachedNames = 1u << 16;

 private:
  std::span<const std::uint8_t> aligned(std::span<const std::uint8_t> frame);
  NameId intern(std::string_view name);
  // Counts the frame after its events were read: with `any_bad` (some event
  // broke a rule) finds which and returns why, counted as invalid.
  std::optional<FrameError> finish(bool any_bad);
  // decode_prepared's walk; `Pairs`: whether it reads each event's masks and
  // timeline ids from pair_ids_ (see prepare_events).
  template <bool Pairs>
  bool walk(BatchPreparer& preparer, DecodedBatch& batch, PreparedBatch& out);
  // Entry k of pair_ids_, filled from the names of event i, its first event
  // (read again, so the loop keeps its event in registers).
  [[gnu::noinline]] const std::array<std::uint64_t, 2>& fill_pair(BatchPreparer& preparer,
                                                                  std::size_t k, std::size_t i);

  NameTable& names_;
  std::mutex* names_mutex_;
  IngestStats stats_;
  // The events of the frame decode_header() accepted last.
  std::unique_ptr<WireEvents> events_;
  // Wire string index -> NameId for the current batch; always 65536 entries,
  // so any 16-bit index can be looked up before the batch is known valid.
  std::vector<NameId> string_ids_;
  std::vector<std::uint64_t> aligned_;  // copy of an unaligned frame
  // With names_mutex_: names interned so far (keys view cached_names_).
  std::deque<std::string> cached_names_;
  std::unordered_map<std::string_view, NameId> cache_;
  // For the frame being prepared, by (cat index << pair_shift_) | name
  // index: the timeline ids (TimelineBlock::pack_ids, so with the class
  // mask in the top byte) of an event on another thread and on the main
  // thread; kUnknownPair until the pair's first event.
  std::vector<std::array<std::uint64_t, 2>> pair_ids_;
  std::vector<std::uint32_t> pair_filled_;  // the entries this frame filled
  unsigned pair_shift_ = 0;
};

}  // namespace stallwatch::collector
