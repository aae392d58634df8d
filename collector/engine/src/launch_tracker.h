// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

#include "engine/cell_data.h"
#include "pending_by_cell.h"

namespace stallwatch::collector::detail {

// Joins a rank's launch calls to the device work they launched by (process,
// correlation id) (docs/api.md, "Kernel launches") and sums each pair's
// LaunchFigures per resolution cell: the cell where the later of the two
// ended. A pair ending before the lower bound it is added with (the
// finalized horizon, the rank's start) is not counted, like a late I/O call.
// Either side may arrive first; one that waits longer than kPendingNs of
// event time behind the horizon, or past kMaxPending, is forgotten (work
// launched by calls that are not recorded, e.g. the driver API, never pairs).
// Memory: one entry per waiting side and per cell between the horizon and
// the newest pair.
//
// Single-threaded; owned by one RankTracker.
class LaunchTracker {
 public:
  static constexpr std::int64_t kPendingNs = 10'000'000'000;
  static constexpr std::size_t kMaxPending = 1u << 20;

  explicit LaunchTracker(std::int64_t resolution_ns) : res_(resolution_ns) {}

  // A launch call (`call` true) or device work, [start, end), of source
  // `source` with correlation id `correlation`; `lower`: where counted time
  // begins.
  void add(bool call, std::uint16_t source, std::uint32_t correlation, std::int64_t start,
           std::int64_t end, std::int64_t lower);

  // Whether a pair was ever counted: the rank's launches are recorded.
  bool captured() const { return captured_; }

  // Calls fn(cell, const LaunchCounts&) for each cell before `until_cell`,
  // in cell order.
  template <class Fn>
  void for_each_pending(std::int64_t until_cell, Fn&& fn) const {
    cells_.for_each(until_cell, fn);
  }
  // Same, then forgets those cells and the sides waiting since long before.
  template <class Fn>
  void finalize(std::int64_t until_cell, Fn&& fn) {
    cells_.take_before(until_cell, fn);
    forget_before(until_cell * res_ - kPendingNs);
  }

  std::size_t pending() const { return waiting_.size(); }
  std::size_t bytes() const;

 private:
  struct Side {
    std::int64_t start = 0;
    std::int64_t end = 0;
    bool call = false;
  };
  void count(const Side& call, const Side& work, std::int64_t lower);
  void forget_before(std::int64_t t_ns);
  void drop_paired_front();

  std::int64_t res_;
  bool captured_ = false;
  std::unordered_map<std::uint64_t, Side> waiting_;           // by source << 32 | correlation
  std::deque<std::pair<std::uint64_t, std::int64_t>> order_;  // (key, end) in arrival order
  PendingByCell<LaunchCounts> cells_;
};

}  // namespace stallwatch::collector::detail
