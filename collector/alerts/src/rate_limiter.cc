// SPDX-License-Identifier: MIT
#include "alerts/rate_limiter.h"

#include <algorithm>

namespace stallwatch::collector {

RateLimiter::RateLimiter(double per_minute)
    : per_ns_(per_minute / 60e9), capacity_(std::max(1.0, per_minute)), tokens_(capacity_) {}

bool RateLimiter::allow(std::int64_t now_ns) {
  if (per_ns_ <= 0) return true;
  if (started_ && now_ns > last_ns_) {
    tokens_ = std::min(capacity_, tokens_ + static_cast<double>(now_ns - last_ns_) * per_ns_);
  }
  if (!started_ || now_ns > last_ns_) last_ns_ = now_ns;
  started_ = true;
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

}  // namespace stallwatch::collector
