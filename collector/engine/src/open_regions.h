// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/event_class.h"
#include "engine/name_table.h"

namespace stallwatch::collector::detail {

// A Begin waiting for its End, or an End that arrived before its Begin
// (another batch of the same source still in flight): both are keyed by
// (tid, region_id) within one source.
struct OpenRegion {
  std::uint64_t key = 0;
  std::int64_t begin_ns = 0;      // as sent (timeline)
  std::int64_t begin_eff_ns = 0;  // clipped to the finalized horizon at arrival
  std::int64_t end_ns = 0;        // orphan End only: as sent
  std::int64_t end_eff_ns = 0;    // orphan End only: clipped to the horizon at arrival
  // Orphan End: its value (bytes moved by an I/O call). Begin of a POSIX or
  // stdio call: its value, the call's file id.
  std::int64_t end_value = 0;
  NameId cat = NameTable::kEmpty;
  NameId name = NameTable::kEmpty;
  std::uint32_t tid = 0;
  ClassMask mask = 0;
  bool main_thread = false;
  bool orphan_end = false;  // an End still waiting for its Begin
  // Orphan End only: it was not late; it ended its loop (kEndLoopExhausted).
  // One byte for both keeps the struct at 64 bytes.
  bool end_on_time : 1 = false;
  bool loop_end : 1 = false;
};

inline std::uint64_t region_key(std::uint32_t tid, std::uint32_t region_id) {
  return (std::uint64_t{tid} << 32) | region_id;
}

// The open regions of one source. Searched from the newest entry, because
// regions nest: the next End almost always closes the latest Begin. Bounded
// by EngineConfig::max_open_regions_per_source (enforced by the caller).
// Single-threaded; owned by one source of a RankSources, paired by EventWalk.
class OpenRegions {
 public:
  // The entry with `key` (Begin or orphan End), or nullptr.
  OpenRegion* find(std::uint64_t key) {
    for (std::size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].key == key) return &entries_[i];
    }
    return nullptr;
  }
  void add(const OpenRegion& r) { entries_.push_back(r); }
  // Removes the entry `r` points into, keeping the others in arrival order
  // (invalidates pointers to later entries).
  void remove(OpenRegion* r) { entries_.erase(entries_.begin() + (r - entries_.data())); }
  void clear() { entries_.clear(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  std::vector<OpenRegion>::const_iterator begin() const { return entries_.begin(); }
  std::vector<OpenRegion>::const_iterator end() const { return entries_.end(); }
  std::vector<OpenRegion>& entries() { return entries_; }
  std::size_t bytes() const { return entries_.capacity() * sizeof(OpenRegion); }

 private:
  std::vector<OpenRegion> entries_;
};

}  // namespace stallwatch::collector::detail
