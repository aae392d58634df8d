// SPDX-License-Identifier: MIT
// validate(): the checks across a DaemonConfig's keys, after defaults, the
// file and the flags are applied (daemon_config.h).
#include <algorithm>
#include <string>
#include <string_view>

#include "daemon_config.h"
#include "ingest/endpoint_scope.h"
#include "serve/tls_files.h"

namespace stallwatch::collector {

namespace {

// Every window [prometheus] names must be one the engine keeps.
std::string validate_prometheus(const DaemonConfig& config) {
  const auto& windows = config.engine.windows_ns;
  const auto check = [&](std::string_view key, std::int64_t w) -> std::string {
    if (w == 0 || std::find(windows.begin(), windows.end(), w) != windows.end()) return {};
    std::string kept;
    for (std::int64_t k : windows)
      kept += "\"" + format_window(k) + "\", ";
    return "prometheus." + std::string(key) + ": window \"" + format_window(w) +
           "\" is not kept by the engine (one of " + kept + "\"total\")";
  };
  const PrometheusConfig& p = config.prometheus;
  for (std::int64_t w : p.per_rank_windows_ns) {
    if (auto err = check("per_rank_windows", w); !err.empty()) return err;
  }
  for (std::int64_t w : p.job_windows_ns) {
    if (auto err = check("job_windows", w); !err.empty()) return err;
  }
  if (p.step_window_ns) return check("step_window", *p.step_window_ns);
  return {};
}

}  // namespace

std::string validate(const DaemonConfig& config) {
  if (config.ingest_endpoints.empty()) return "ingest: no endpoint to listen on";
  for (const auto& e : config.ingest_endpoints) {
    if (e.rfind("tcp://", 0) != 0 && e.rfind("ipc://", 0) != 0) {
      return "ingest endpoint '" + e + "': expected tcp://HOST:PORT or ipc://PATH";
    }
  }
  for (const auto& e : config.curve_endpoints) {
    if (e.rfind("tcp://", 0) != 0) {
      return "CURVE endpoint '" + e + "': expected tcp://HOST:PORT";
    }
  }
  if (config.allow_list_path && config.curve_endpoints.empty()) {
    return "ingest.allow_list: set, but there is no CURVE endpoint to apply it to";
  }
  if (!config.insecure_plaintext_remote) {
    for (const auto& e : config.ingest_endpoints) {
      if (is_local_endpoint(e)) continue;
      return "ingest endpoint '" + e +
             "' can be reached from other hosts but takes plaintext: anyone who reaches it can "
             "send batches, and they travel unencrypted. Make it a CURVE endpoint (--curve, "
             "[ingest] curve_endpoints) or, on a network you trust, say so with "
             "--insecure-plaintext-remote ([ingest] insecure_plaintext_remote = true)";
    }
  }
  const std::string http_address = config.http_host.find(':') == std::string::npos
                                       ? config.http_host
                                       : "[" + config.http_host + "]";
  if (!config.insecure_http_without_token && config.http_token.empty() &&
      !is_local_endpoint("tcp://" + http_address + ":" + std::to_string(config.http_port))) {
    return "http.listen '" + http_address + ":" + std::to_string(config.http_port) +
           "' can be reached from other hosts but no token is set: anyone who reaches it can "
           "read every job's metrics and timelines. Set a bearer token ([http] token_file) or, "
           "on a network you trust, say so with --insecure-http-without-token ([http] "
           "insecure_without_token = true)";
  }
  if (config.http_tls_cert.empty() != config.http_tls_key.empty()) {
    return "http.tls_cert and http.tls_key (--http-tls-cert, --http-tls-key) go together: set "
           "both or neither";
  }
  if (!config.http_tls_cert.empty()) {
    if (auto err = check_tls_files(config.http_tls_cert, config.http_tls_key); !err.empty()) {
      return "http: " + err;
    }
  }
  if (auto err = validate_tree(config.tree, config.insecure_plaintext_remote); !err.empty()) {
    return err;
  }
  if (config.tick_ns < 10'000'000 || config.tick_ns > 60 * kNsPerSecond) {
    return "engine.tick: must be between 10ms and 60s";
  }
  if (auto err = collector::validate(config.engine); !err.empty()) return "engine: " + err;
  if (auto err = collector::validate(config.alerts, config.engine.windows_ns); !err.empty()) {
    return err;
  }
  return validate_prometheus(config);
}

}  // namespace stallwatch::collector
