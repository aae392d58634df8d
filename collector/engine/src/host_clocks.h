// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/snapshot.h"

namespace stallwatch::collector::detail {

// Each host's clock offset against the collector's (docs/design.md,
// "Clocks"). Every batch gives one sample, sent_at - received: the host's
// clock minus the collector's, less the batch's one-way delay. The estimate is
// the largest sample of the last `window_ns` of batches (received time), so
// it is low by at most the smallest delay seen in that window and never
// follows a queue that builds up. Samples are kept as one maximum per second
// of collector time: memory per host is bounded by the window's seconds.
//
// Part of the engine: not thread-safe, time comes in as parameters.
class HostClocks {
 public:
  HostClocks(std::int64_t window_ns, std::int64_t warning_ns)
      : window_ns_(window_ns), warning_ns_(warning_ns) {}

  void observe(std::string_view host, std::int64_t sent_at_ns, std::int64_t received_ns);

  // Drops what fell out of the window at `now_ns` (and hosts with nothing
  // left), then lists the hosts, sorted.
  std::vector<HostClock> tick(std::int64_t now_ns);

  // The current estimate for `host`; 0 for a host without samples.
  std::int64_t offset_ns(std::string_view host) const;

  std::size_t approx_bytes() const;

 private:
  struct Second {
    std::int64_t second = 0;  // received_ns / 1 s
    std::int64_t max_offset_ns = 0;
    std::uint64_t samples = 0;
  };
  struct Host {
    std::deque<Second> seconds;  // oldest first
    std::int64_t offset_ns = 0;  // as of the last tick()
    std::int64_t last_batch_ns = 0;
  };

  std::int64_t window_ns_;
  std::int64_t warning_ns_;
  std::map<std::string, Host, std::less<>> hosts_;
  Host* last_ = nullptr;  // the host of the previous batch: most batches repeat it
  std::string_view last_name_;
};

}  // namespace stallwatch::collector::detail
