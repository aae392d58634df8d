// SPDX-License-Identifier: MIT
#pragma once

// What the daemon publishes for serving after every tick: the engine's
// immutable snapshot plus daemon-wide status and the alerts. Immutable once
// published; readers share it through std::shared_ptr<const PublishedState>
// and never lock anything to read it.

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alerts/alert_view.h"
#include "alerts/sink_stats.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

// The collector tree as this daemon takes part in it (docs/api.md, "tree"):
// as a node reporting to a head (upstream) and/or as a head (listen).
struct TreeStatus {
  std::string upstream;  // the head's endpoint; empty: not a node
  std::string node;      // this node's name at the head
  bool upstream_curve = false;
  std::uint64_t reports_sent = 0;    // report frames handed to the socket
  std::uint64_t reports_unsent = 0;  // dropped: head unreachable or queue full
  std::uint64_t bytes_sent = 0;
  std::vector<std::string> listen;        // endpoints taking nodes' reports; empty: not a head
  std::vector<std::string> curve_listen;  // the CURVE ones among them
  std::uint64_t nodes = 0;                // nodes heard from, not yet forgotten
  std::uint64_t remote_ranks = 0;
  std::uint64_t reports_received = 0;
  std::uint64_t reports_rejected = 0;
  std::uint64_t bytes_received = 0;
  std::string last_rejection;
  std::uint64_t timelines_fetched = 0;        // remote ranks' timelines got from their nodes
  std::uint64_t timeline_fetch_failures = 0;  // fetches that failed (node down, TLS, token)
  std::string last_timeline_failure;          // why the last one failed; "" when none did
  std::uint64_t series_fetched = 0;           // remote ranks' series got from their nodes
  std::uint64_t series_fetch_failures = 0;    // nodes that did not give theirs
  std::string last_series_failure;            // why the last one failed; "" when none did
};

// Daemon-wide state for `GET /api/v1/status`, `/healthz` and the self metrics.
// The journal as the API shows it (`journal` in /api/v1/status).
struct JournalStatus {
  bool enabled = false;
  bool writing = false;  // false: writes fail now (see error); the daemon retries every second
  std::string error;     // the last write error; "" when none since start
  std::uint64_t records_written = 0;
  std::uint64_t records_unwritten = 0;  // valid batches that did not reach the journal
  std::uint64_t bytes_written = 0;
};

struct DaemonStatus {
  std::string version;
  double uptime_seconds = 0;
  std::uint64_t tick = 0;
  std::int64_t tick_ms = 500;
  double tick_seconds_last = 0;  // wall time the last engine tick took
  double tick_seconds_max = 0;   // since start
  double tick_seconds_p50 = 0;   // over the last ten minutes of ticks
  double tick_seconds_p99 = 0;
  double tick_cpu_seconds_last = 0;  // CPU time of the tick thread for the last tick
  double tick_cpu_seconds_p99 = 0;
  std::uint64_t connections_accepted = 0;       // agent connections on the ingest sockets
  std::uint64_t connections_closed = 0;         // includes senders cut for an oversized frame
  std::vector<std::string> ingest_endpoints;    // every bound endpoint, CURVE ones included
  std::vector<std::string> curve_endpoints;     // those that take only CURVE clients
  std::string curve_public_key;                 // Z85; empty without CURVE endpoints
  std::optional<std::size_t> curve_allow_list;  // agent keys allowed; nullopt: any agent key
  // Connections refused in the handshake, by reason ("plaintext_client",
  // "wrong_server_key", "not_allowed", "handshake_failed"), in listing order.
  std::vector<std::pair<std::string, std::uint64_t>> rejected_connections;
  std::uint64_t frames_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t events_received = 0;
  // Invalid frames by reason ("too_large", "bad_identifier", ...), in the
  // order they are to be listed.
  std::vector<std::pair<std::string, std::uint64_t>> invalid_frames;
  double ingest_lag_seconds = 0;
  std::uint64_t names_interned = 0;
  std::uint64_t names_overflowed = 0;
  // Delivery counters of each alert sink (log, Alertmanager, webhook, exec).
  std::vector<SinkStats> alert_sinks;
  TreeStatus tree;
  JournalStatus journal;
};

struct PublishedState {
  std::shared_ptr<const Snapshot> snapshot;  // may be null before the first tick
  DaemonStatus status;
  std::vector<AlertView> alerts;
};

}  // namespace stallwatch::collector
