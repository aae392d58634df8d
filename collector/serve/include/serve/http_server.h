// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "serve/api_backend.h"
#include "serve/serve_config.h"
#include "serve/serve_stats.h"

namespace stallwatch::collector {

// The daemon's HTTP and WebSocket server (docs/api.md): the JSON
// API, `/metrics`, the dashboard's static files and `/api/v1/stream`.
//
// Threads: start(), stop() and the destructor are called by the owner;
// on_tick() from any one thread but not concurrently with start() or stop()
// (the daemon stops ticking before it stops the server); port() and stats()
// from any thread. The server runs its own io
// threads (ServeConfig::io_threads); it reads state only through the
// ApiBackend, which must outlive it, and holds no lock while writing to a
// socket. Hostile clients cost bounded memory: limits on connections,
// header and body sizes, timeouts on slow clients, and at most one pending
// tick per WebSocket session (a slow reader skips ticks).
//
// With ServeConfig::tls_cert_file and tls_key_file, every connection speaks
// TLS (https, wss) and a plain-HTTP client is dropped after the failed
// handshake. reload_tls() reads the two files again for the connections
// that follow, without closing the listener or any connection.
//
// Boost.Beast stays behind this header; the daemon never sees it.
class HttpServer {
 public:
  HttpServer(ServeConfig config, ApiBackend& backend);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port and starts serving. Returns "" or what went wrong,
  // naming the address (e.g. "cannot listen on 127.0.0.1:8787: Address
  // already in use") or the TLS file that does not load.
  std::string start();

  // Sends a tick with the backend's current state to every WebSocket
  // session. Returns at once; serialization happens on the io threads, once
  // per tick (and once per subscribed job).
  void on_tick();

  // Stops accepting, closes every connection and joins the io threads.
  // Bounded: in-flight writes are abandoned. Idempotent.
  void stop();

  // Loads ServeConfig::tls_cert_file and tls_key_file again: handshakes
  // that start afterwards get the new pair. A pair that does not load or
  // match is refused and the current one keeps serving. Returns "" or why
  // (naming the file); counted in stats() either way. Any thread, while
  // the server runs.
  std::string reload_tls();

  // The bound port (the actual one when ServeConfig::port is 0); 0 before start().
  std::uint16_t port() const;

  ServeStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stallwatch::collector
