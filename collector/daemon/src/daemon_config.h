// SPDX-License-Identifier: MIT
#pragma once

// Everything stallwatchd can be told, from defaults, an optional TOML file and
// command-line flags (flags win). Loading never throws: a bad file, key or
// value yields one message naming the file, line and key, and the daemon
// exits with status 2.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/alerts_config.h"
#include "config/duration.h"
#include "engine/engine_config.h"
#include "serve/prometheus_config.h"
#include "tree_config.h"

namespace stallwatch::collector {

struct DaemonConfig {
  // ZeroMQ PULL endpoints: tcp://127.0.0.1:5557 and the ipc socket.
  // Plaintext: refused at start on an address other hosts can reach, unless
  // insecure_plaintext_remote.
  std::vector<std::string> ingest_endpoints;
  // Endpoints that take only CURVE clients (agents on other hosts), with the
  // key pair of state_dir and, when set, the allow-list of agents' keys.
  std::vector<std::string> curve_endpoints;
  std::optional<std::string> allow_list_path;
  bool insecure_plaintext_remote = false;
  std::string state_dir;  // empty: default_state_dir()
  std::string http_host = "127.0.0.1";
  std::uint16_t http_port = 8787;
  std::size_t http_max_connections = 256;
  // A request must arrive whole within read_timeout of its first byte (slow
  // clients are closed and counted); an idle connection is closed after idle_timeout.
  std::int64_t http_read_timeout_ns = 10'000'000'000;
  std::int64_t http_idle_timeout_ns = 60'000'000'000;
  std::string http_token;  // empty: no bearer token required
  // Serve the API without a token on an address other hosts can reach;
  // refused at start otherwise.
  bool insecure_http_without_token = false;
  // PEM certificate chain and key: serve the API, page and WebSocket over
  // TLS. Both or neither; empty: plain HTTP.
  std::string http_tls_cert;
  std::string http_tls_key;
  std::optional<std::string> journal_dir;
  std::uint64_t journal_max_bytes = 1ull << 30;
  std::int64_t journal_max_age_ns = 0;  // 0: no age bound
  std::int64_t tick_ns = 500'000'000;
  std::string log_level = "info";
  EngineConfig engine;
  AlertsConfig alerts;
  // [prometheus]: what /metrics adds to its defaults (the step histogram's
  // buckets live in engine.step_histogram_bounds_ns: the engine counts them).
  PrometheusConfig prometheus;
  TreeConfig tree;                         // [upstream] and [tree]
  std::optional<std::string> config_path;  // where the file came from, if any
};

// The defaults (the ipc endpoint depends on XDG_RUNTIME_DIR/UID).
DaemonConfig default_daemon_config();

// Inverse for display: "10s", "1m30s" -> "90s" style; whole seconds as "<n>s".
std::string format_window(std::int64_t ns);
// The step-time histogram buckets `[prometheus] step_histogram = true` uses
// unless step_histogram_buckets says otherwise: 10 ms to 60 s.
const std::vector<std::int64_t>& default_step_histogram_buckets();
// Parses "host:port" (port 0..65535; "[::1]:8787" for IPv6).
bool parse_host_port(std::string_view text, std::string& host, std::uint16_t& port);

// Applies a TOML document on top of `config`. Returns "" or the error.
std::string apply_toml(std::string_view toml_text, std::string_view file_name,
                       DaemonConfig& config);
std::string load_config_file(const std::string& path, DaemonConfig& config);

// Cross-field checks after everything is applied. Returns "" or the error.
std::string validate(const DaemonConfig& config);

}  // namespace stallwatch::collector
