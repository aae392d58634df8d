// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "serve/prometheus_config.h"

namespace stallwatch::collector {

// One static asset of the web dashboard. The views must stay valid for the
// server's lifetime (the assets are embedded in the binary).
struct StaticFile {
  std::string_view content;
  std::string_view content_type;  // e.g. "text/html; charset=utf-8"
};

// Looks up the asset for a request path ("/", "/app.js", ...; no query
// string). Called from the server's io threads; must be thread-safe.
using StaticFiles = std::function<std::optional<StaticFile>(std::string_view path)>;

// Everything the HTTP server is told by the daemon.
struct ServeConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8787;  // 0: any free port (see HttpServer::port())
  std::size_t io_threads = 1;
  std::size_t max_connections = 256;  // HTTP and WebSocket together
  std::size_t max_header_bytes = 8 * 1024;
  std::size_t max_body_bytes = 64 * 1024;
  std::size_t max_ws_message_bytes = 4 * 1024;
  // Time allowed to receive a whole request once its first byte arrived, and
  // for a new connection's first request to begin.
  std::chrono::milliseconds read_timeout{10'000};
  // Time an HTTP keep-alive connection may wait for its next request, and a
  // WebSocket may stay silent (it is pinged at half this time).
  std::chrono::milliseconds idle_timeout{60'000};
  // Time allowed to send one response (a client that does not read).
  std::chrono::milliseconds write_timeout{10'000};
  // When not empty, every request but /healthz and the static assets needs
  // `Authorization: Bearer <token>` or `?token=<token>`.
  std::string bearer_token;
  // When both are set (PEM files), the API, the page and the WebSocket are
  // served over TLS only (https, wss); check_tls_files() tells whether they load.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Upper bounds of the `seconds` query parameters (engine timeline_ns and
  // history_ns); larger requests are clamped.
  std::int64_t timeline_max_seconds = 60;
  std::int64_t series_max_seconds = 3600;
  // What /metrics exports beyond its defaults.
  PrometheusConfig prometheus;
  // Serves `GET /` and the page's assets; may be empty (then 404).
  StaticFiles static_files;
};

}  // namespace stallwatch::collector
