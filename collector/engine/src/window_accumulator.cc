// SPDX-License-Identifier: MIT
#include "window_accumulator.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace stallwatch::collector::detail {

WindowAccumulator::WindowAccumulator(std::int64_t window_cells, std::int64_t resolution_ns)
    : window_cells_(window_cells),
      resolution_ns_(resolution_ns),
      lo_cell_(std::numeric_limits<std::int64_t>::min() / resolution_ns) {}

void WindowAccumulator::on_cell(std::int64_t k, const CellData& c) {
  if (k >= lo_cell_) sums_.add(c);
}

void WindowAccumulator::on_cell_evicted(std::int64_t k, const CellData& c,
                                        const FinalizedHistory& h) {
  if (is_totals() || k < lo_cell_) return;
  sums_.sub(c);
  lo_cell_ = k + 1;
  drop_steps_before(lo_cell_, h);
}

void WindowAccumulator::on_step(std::uint64_t seq, const StepRecord& s) {
  if (!is_totals() && s.ts_ns < lo_cell_ * resolution_ns_) {
    first_seq_ = seq + 1;
    return;
  }
  if (durations_.empty()) first_seq_ = seq;
  durations_.insert(s.duration_ns);
}

void WindowAccumulator::on_step_evicted(std::uint64_t seq, const StepRecord& s) {
  if (seq < first_seq_) return;
  durations_.erase(s.duration_ns);
  first_seq_ = seq + 1;
}

void WindowAccumulator::move_to(std::int64_t lo, const FinalizedHistory& h) {
  if (is_totals() || lo == lo_cell_) return;
  if (lo < lo_cell_) {
    rebuild(lo, h);
    return;
  }
  const std::int64_t from = std::max(lo_cell_, h.first_cell());
  const std::int64_t to = std::min(lo, h.cell_end);
  for (std::int64_t k = from; k < to; ++k)
    sums_.sub(*h.cell(k));
  lo_cell_ = lo;
  drop_steps_before(lo, h);
}

void WindowAccumulator::drop_steps_before(std::int64_t lo, const FinalizedHistory& h) {
  first_seq_ = std::max(first_seq_, h.first_step());
  const std::int64_t lo_ns = lo * resolution_ns_;
  while (first_seq_ < h.step_end && h.step(first_seq_).ts_ns < lo_ns) {
    durations_.erase(h.step(first_seq_).duration_ns);
    ++first_seq_;
  }
}

void WindowAccumulator::rebuild(std::int64_t lo, const FinalizedHistory& h) {
  lo_cell_ = lo;
  sums_ = Sums{};
  for (std::int64_t k = std::max(lo, h.first_cell()); k < h.cell_end; ++k)
    sums_.add(*h.cell(k));
  const std::int64_t lo_ns = lo * resolution_ns_;
  std::vector<std::int64_t> kept;
  first_seq_ = h.step_end;
  for (std::uint64_t seq = h.first_step(); seq < h.step_end; ++seq) {
    if (h.step(seq).ts_ns < lo_ns) continue;
    if (kept.empty()) first_seq_ = seq;
    kept.push_back(h.step(seq).duration_ns);
  }
  durations_.assign(std::move(kept));
}

}  // namespace stallwatch::collector::detail
