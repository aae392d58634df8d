// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/cell_data.h"
#include "engine/name_table.h"
#include "pending_by_cell.h"

namespace stallwatch::collector::detail {

// Which way a call moves bytes: the value of these POSIX and stdio calls
// (cat POSIX or STDIO, as libstallwatch_posix.so records them: a Complete
// with wire::kEventFlagCompleteValue, or an END) is the number of bytes the call moved.
enum class IoDirection : std::uint8_t { kNone, kRead, kWrite };

// The name ids of the categories and calls above, interned once by the
// engine. direction() is two compares for any other region.
struct IoCallNames {
  static constexpr std::array<std::string_view, 7> kReads = {
      "read", "pread", "pread64", "readv", "preadv", "preadv64", "fread"};
  static constexpr std::array<std::string_view, 6> kWrites = {"write",   "pwrite",    "pwrite64",
                                                              "pwritev", "pwritev64", "fwrite"};

  NameId posix = NameTable::kEmpty;
  NameId stdio = NameTable::kEmpty;
  std::array<NameId, kReads.size()> reads{};
  std::array<NameId, kWrites.size()> writes{};

  NameId file_mark = NameTable::kEmpty;  // cat of the marks naming a file id

  static IoCallNames intern(NameTable& names);
  // A POSIX or stdio call (its subject, when not 0, is a file id).
  bool is_call(NameId cat) const { return cat == posix || cat == stdio; }
  IoDirection direction(NameId cat, NameId name) const {
    if (cat != posix && cat != stdio) [[likely]]
      return IoDirection::kNone;
    return classify(name);
  }

 private:
  IoDirection classify(NameId name) const;
};

// The read and write calls of one rank that ended at or after its finalized
// horizon, summed per resolution cell (the cell of the call's end) until
// WindowFinalizer folds them into the finalized cells. EventWalk decides
// which calls count (on time, not before the rank's start); this only sums.
// Memory: one entry per cell between the horizon and the newest call.
//
// Single-threaded; owned by one RankTracker.
class IoVolumeTracker {
 public:
  explicit IoVolumeTracker(std::int64_t resolution_ns) : res_(resolution_ns) {}

  // A call in `direction` that ended at `ts` having moved `bytes` (negative:
  // none).
  void add(std::int64_t ts, IoDirection direction, std::int64_t bytes);

  // Calls fn(cell, const IoVolume&) for each cell before `until_cell`, in
  // cell order.
  template <class Fn>
  void for_each_pending(std::int64_t until_cell, Fn&& fn) const {
    cells_.for_each(until_cell, fn);
  }
  // Same, then forgets those cells.
  template <class Fn>
  void finalize(std::int64_t until_cell, Fn&& fn) {
    cells_.take_before(until_cell, fn);
  }

  std::size_t pending() const { return cells_.size(); }
  std::size_t bytes() const { return cells_.bytes(); }

 private:
  std::int64_t res_;
  PendingByCell<IoVolume> cells_;
};

}  // namespace stallwatch::collector::detail
