// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coverage_map.h"
#include "engine/event_class.h"
#include "rank_sources.h"

namespace stallwatch::collector::detail {

// Lays the open regions of a rank's sources over its CoverageMap: an open
// region covers its classes from its effective begin up to its own source's
// watermark (no further: the rest of it is not known yet), so a tick or a
// finalization can count regions that have not ended as if they ended there.
// The open regions are never put into the map itself.
//
// Single-threaded; owned by one WindowFinalizer. Its only state is working
// space, so a const caller may hold it `mutable`. It does not change the map
// or the open regions: it reports, the caller counts.
class OpenOverlay {
 public:
  struct Piece {
    std::int64_t start;
    std::int64_t end;
    ClassMask mask;
  };

  // The union of the sources' open regions (metric classes only; orphan Ends
  // have none) within [from, to), as pieces in time order, each with the
  // classes open over it. Valid until the next call.
  const std::vector<Piece>& pieces(const std::vector<SourceTracker>& sources, std::int64_t from,
                                   std::int64_t to);

  // Calls emit(start, end, old_mask, new_mask) for every piece of `map`
  // within [from, to) whose mask the open regions change, as
  // CoverageMap::merge would report adding them.
  template <class Emit>
  void for_each_change(const CoverageMap& map, const std::vector<SourceTracker>& sources,
                       std::int64_t from, std::int64_t to, Emit&& emit) {
    for (const Piece& p : pieces(sources, from, to)) {
      map.for_each(p.start, p.end, [&](std::int64_t s, std::int64_t e, ClassMask m) {
        const auto merged = ClassMask(m | p.mask);
        if (merged != m) emit(s, e, m, merged);
      });
    }
  }

  std::size_t bytes() const {
    return (open_.capacity() + pieces_.capacity()) * sizeof(Piece) +
           edges_.capacity() * sizeof(Edge);
  }

 private:
  struct Edge {
    std::int64_t t;
    ClassMask mask;
    int delta;  // +1 opens, -1 closes
  };

  std::vector<Piece> open_;
  std::vector<Edge> edges_;
  std::vector<Piece> pieces_;
};

}  // namespace stallwatch::collector::detail
