// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>

namespace stallwatch::collector {

// The server's own counters, read at any time (exported on /metrics).
struct ServeStats {
  std::uint64_t connections_accepted = 0;
  std::uint64_t connections_refused = 0;  // over max_connections
  std::uint64_t connections_active = 0;   // open now
  std::uint64_t requests = 0;
  std::uint64_t bad_requests = 0;        // malformed HTTP, over a limit
  std::uint64_t timeouts = 0;            // slow or idle clients closed
  std::uint64_t websocket_sessions = 0;  // open now
  std::uint64_t websocket_messages_sent = 0;
  std::uint64_t websocket_ticks_skipped = 0;      // slow readers
  std::uint64_t websocket_messages_rejected = 0;  // oversized or not understood
  std::uint64_t handler_errors = 0;               // exceptions caught at the io loop
  std::uint64_t tls_reloads = 0;                  // certificate pairs loaded again (SIGHUP)
  std::uint64_t tls_reload_failures = 0;          // new pairs refused; the old one kept serving
  std::uint64_t connections_evicted = 0;  // idle ones closed to admit a new one at the limit
};

// The live form of ServeStats: updated by the io threads with relaxed atomics.
struct ServeCounters {
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> connections_refused{0};
  std::atomic<std::uint64_t> connections_active{0};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> bad_requests{0};
  std::atomic<std::uint64_t> timeouts{0};
  std::atomic<std::uint64_t> websocket_sessions{0};
  std::atomic<std::uint64_t> websocket_messages_sent{0};
  std::atomic<std::uint64_t> websocket_ticks_skipped{0};
  std::atomic<std::uint64_t> websocket_messages_rejected{0};
  std::atomic<std::uint64_t> handler_errors{0};
  std::atomic<std::uint64_t> tls_reloads{0};
  std::atomic<std::uint64_t> tls_reload_failures{0};
  std::atomic<std::uint64_t> connections_evicted{0};

  ServeStats load() const {
    constexpr auto r = std::memory_order_relaxed;
    return ServeStats{connections_accepted.load(r),
                      connections_refused.load(r),
                      connections_active.load(r),
                      requests.load(r),
                      bad_requests.load(r),
                      timeouts.load(r),
                      websocket_sessions.load(r),
                      websocket_messages_sent.load(r),
                      websocket_ticks_skipped.load(r),
                      websocket_messages_rejected.load(r),
                      handler_errors.load(r),
                      tls_reloads.load(r),
                      tls_reload_failures.load(r),
                      connections_evicted.load(r)};
  }
};

inline void bump(std::atomic<std::uint64_t>& counter) {
  counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace stallwatch::collector
