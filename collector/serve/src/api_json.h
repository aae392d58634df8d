// SPDX-License-Identifier: MIT
#pragma once

// JSON bodies of the endpoints that are not a plain snapshot view
// (docs/api.md): healthz, status, timeline, series, alerts, errors and the
// WebSocket messages. Pure functions of their arguments; any thread.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "serve/json_writer.h"
#include "serve/published_state.h"
#include "serve/serve_stats.h"
#include "serve/snapshot_json.h"

namespace stallwatch::collector {

std::string healthz_json(const DaemonStatus& status);
// `http`: the HTTP server's own counters, under "http".
std::string status_json(const PublishedState& state, const SnapshotJson& view,
                        const ServeStats& http);

// `rank` (may be null) gives each thread's process role.
std::string timeline_json(const Timeline& timeline, const RankSnapshot* rank);
// `failed_nodes`: (node, why) of the nodes whose ranks are missing (a tree head).
std::string series_json(const Series& series, std::string_view window,
                        const std::vector<std::pair<std::string, std::string>>& failed_nodes = {});

// A node's timeline JSON (timeline_json() of the node's daemon) with its
// "peer_waits" (the last key, matched over the node's ranks only) replaced
// by `waits` that overlap its from_ns..to_ns: a head's matching over the
// ranks of all its nodes. The body unchanged when it does not end so.
std::string with_peer_waits(std::string body, const std::vector<PeerWaitSpan>& waits);

void write_alerts(JsonWriter& w, const std::vector<AlertView>& alerts);
std::string alerts_json(const std::vector<AlertView>& alerts);

// {"error": message, "status": status}
std::string error_json(unsigned status, std::string_view message);

// WebSocket: the greeting, and a tick up to and including `"job":` (the
// subscribed job's detail, or null, and a closing brace follow).
std::string hello_json(const PublishedState& state, const SnapshotJson& view);
std::string tick_head_json(const PublishedState& state, const SnapshotJson& view);

}  // namespace stallwatch::collector
