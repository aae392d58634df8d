// SPDX-License-Identifier: MIT
#include "delivery_pacer.h"

#include <algorithm>
#include <cmath>

namespace stallwatch::agent {

void DeliveryPacer::reset(std::size_t max_records, std::int64_t now_ns) noexcept {
  max_records_ = std::max<std::size_t>(max_records, 1);
  records_per_buffer_.store(max_records_, std::memory_order_relaxed);
  last_delay_.store(0, std::memory_order_relaxed);
  max_delay_.store(0, std::memory_order_relaxed);
  rate_ = 0.0;
  rate_measured_ = false;
  window_records_ = 0;
  window_start_ns_ = now_ns;
  last_progress_ns_ = now_ns;
}

void DeliveryPacer::on_delivered(std::size_t records, std::int64_t delay_ns,
                                 std::int64_t now_ns) noexcept {
  window_records_ += records;
  last_progress_ns_ = now_ns;
  if (delay_ns < 0) return;
  last_delay_.store(delay_ns, std::memory_order_relaxed);
  if (delay_ns > max_delay_.load(std::memory_order_relaxed)) {
    max_delay_.store(delay_ns, std::memory_order_relaxed);
  }
}

void DeliveryPacer::tick(std::int64_t now_ns) noexcept {
  const std::int64_t span = now_ns - window_start_ns_;
  if (span < 100'000'000) return;
  const double rate = static_cast<double>(window_records_) * 1e9 / static_cast<double>(span);
  // A rise counts at once (buffers must close sooner, not later); a fall
  // halves the gap per window.
  rate_ = rate > rate_ ? rate : (rate_ + rate) / 2;
  rate_measured_ = rate_measured_ || window_records_ > 0;
  window_records_ = 0;
  window_start_ns_ = now_ns;
  const double wanted = std::ceil(rate_ * static_cast<double>(kFillTargetNs) * 1e-9);
  const double most = static_cast<double>(max_records_);
  const auto records = static_cast<std::size_t>(
      std::clamp(wanted, std::min(static_cast<double>(kMinRecords), most), most));
  records_per_buffer_.store(records, std::memory_order_relaxed);
}

bool DeliveryPacer::force_due(std::size_t buffers_out, std::size_t pool_buffers,
                              std::int64_t now_ns) const noexcept {
  if (buffers_out == 0 || now_ns - last_progress_ns_ < kForceAfterNs) return false;
  return !rate_measured_ || buffers_out * 4 >= pool_buffers * 3;
}

void DeliveryPacer::note_progress(std::int64_t now_ns) noexcept {
  last_progress_ns_ = now_ns;
}

}  // namespace stallwatch::agent
