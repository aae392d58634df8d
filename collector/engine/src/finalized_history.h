// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include "engine/cell_data.h"
#include "engine/ring_buffer.h"

namespace stallwatch::collector::detail {

struct StepRecord {
  std::int64_t ts_ns = 0;
  std::int64_t duration_ns = 0;
};

// What one rank has finalized: its last `history` resolution cells and its
// most recent step durations (EngineConfig::max_steps_kept). Owned by a
// WindowFinalizer; the windows read from it.
struct FinalizedHistory {
  FinalizedHistory(std::size_t cell_capacity, std::size_t step_capacity)
      : cells(cell_capacity), steps(step_capacity) {}

  RingBuffer<CellData> cells;    // cells [cell_end - size, cell_end)
  std::int64_t cell_end = 0;     // one past the newest finalized cell
  RingBuffer<StepRecord> steps;  // oldest first, increasing ts
  std::uint64_t step_end = 0;    // sequence number of the next finalized step

  std::int64_t first_cell() const { return cell_end - static_cast<std::int64_t>(cells.size()); }
  // Cell k, or nullptr when it is not retained.
  const CellData* cell(std::int64_t k) const {
    if (k < first_cell() || k >= cell_end) return nullptr;
    return &cells[static_cast<std::size_t>(k - first_cell())];
  }
  std::uint64_t first_step() const { return step_end - steps.size(); }
  const StepRecord& step(std::uint64_t seq) const {
    return steps[static_cast<std::size_t>(seq - first_step())];
  }
};

}  // namespace stallwatch::collector::detail
