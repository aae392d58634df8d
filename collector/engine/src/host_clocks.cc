// SPDX-License-Identifier: MIT
#include "host_clocks.h"

#include <algorithm>
#include <limits>

#include "engine/engine_config.h"

namespace stallwatch::collector::detail {
void HostClocks::observe(std::string_view host, std::int64_t sent_at_ns, std::int64_t received_ns) {
  if (last_ == nullptr || last_name_ != host) {
    auto it = hosts_.find(host);
    if (it == hosts_.end()) it = hosts_.emplace(std::string(host), Host{}).first;
    last_ = &it->second;
    last_name_ = it->first;
  }
  Host& h = *last_;
  const std::int64_t offset = sent_at_ns - received_ns;
  const std::int64_t second = received_ns / kNsPerSecond;
  if (h.seconds.empty() || h.seconds.back().second < second) {
    h.seconds.push_back(Second{second, offset, 1});
    // The first sample of a host counts at once; later ones at the next tick.
    if (h.seconds.size() == 1) h.offset_ns = offset;
  } else {
    Second& s = h.seconds.back();
    s.max_offset_ns = std::max(s.max_offset_ns, offset);
    ++s.samples;
  }
  h.last_batch_ns = std::max(h.last_batch_ns, received_ns);
}

std::vector<HostClock> HostClocks::tick(std::int64_t now_ns) {
  const std::int64_t oldest = (now_ns - window_ns_) / kNsPerSecond;
  std::vector<HostClock> out;
  for (auto it = hosts_.begin(); it != hosts_.end();) {
    Host& h = it->second;
    while (!h.seconds.empty() && h.seconds.front().second < oldest)
      h.seconds.pop_front();
    if (h.seconds.empty()) {
      if (last_ == &h) last_ = nullptr;
      it = hosts_.erase(it);
      continue;
    }
    std::int64_t offset = std::numeric_limits<std::int64_t>::min();
    std::uint64_t samples = 0;
    for (const Second& s : h.seconds) {
      offset = std::max(offset, s.max_offset_ns);
      samples += s.samples;
    }
    h.offset_ns = offset;
    const std::int64_t magnitude = offset < 0 ? -offset : offset;
    out.push_back(HostClock{it->first, offset, samples, h.last_batch_ns, magnitude >= warning_ns_});
    ++it;
  }
  return out;
}

std::int64_t HostClocks::offset_ns(std::string_view host) const {
  auto it = hosts_.find(host);
  return it != hosts_.end() ? it->second.offset_ns : 0;
}

std::size_t HostClocks::approx_bytes() const {
  std::size_t bytes = sizeof(*this);
  for (const auto& [name, h] : hosts_) {
    bytes += name.capacity() + sizeof(h) + 64 + h.seconds.size() * sizeof(Second);
  }
  return bytes;
}

}  // namespace stallwatch::collector::detail
