// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallwatch::collector {

// A token bucket: `per_minute` notifications a minute on average, bursts up
// to max(1, per_minute). 0 means unlimited. Pure: time is a parameter
// (any monotonic ns clock). Not thread-safe.
class RateLimiter {
 public:
  explicit RateLimiter(double per_minute);

  // True (and a token is spent) when one more is allowed at `now_ns`.
  bool allow(std::int64_t now_ns);

 private:
  double per_ns_;
  double capacity_;
  double tokens_;
  std::int64_t last_ns_ = 0;
  bool started_ = false;
};

}  // namespace stallwatch::collector
