// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "daemon_config.h"
#include "keys/curve_key_pair.h"
#include "tick_stats.h"

namespace stallwatch::collector {

class Alerting;
class EngineHost;
class IngestLoop;
class HttpServer;
class TreeLink;

// stallwatchd assembled: the engine host, the ingest threads (receive and
// apply, IngestLoop), the tick thread
// (engine tick -> alerts -> PublishedState -> WebSocket push, once per tick),
// the alert sinks' sender threads, the HTTP server and the collector tree
// (TreeLink: a head's receive thread, a node's upstream sender). start() binds
// everything (the CURVE endpoints with the key pair of the state directory,
// made on first start) and returns an error naming what could not be bound
// or read; stop()
// shuts down in reverse order, bounded.
// Owned and driven by the main thread.
class Daemon {
 public:
  explicit Daemon(DaemonConfig config);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  std::string start();
  void stop();
  // What SIGHUP does, on the signal thread after start(): loads the API's
  // TLS certificate and key again (docs/operations.md); logs the outcome.
  void reload();

  std::uint16_t http_port() const;

 private:
  // Loads (or creates) the key pair when CURVE endpoints or the tree need it.
  std::string load_keys();
  // Binds the CURVE endpoints, if any.
  std::string bind_curve();
  void restore_journal();
  void tick_loop();
  void tick_once(std::int64_t now_ns);
  void release_dropped_ranks(std::uint64_t dropped);

  DaemonConfig config_;
  std::unique_ptr<EngineHost> host_;
  std::unique_ptr<IngestLoop> ingest_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<Alerting> alerting_;
  std::unique_ptr<TreeLink> tree_;
  std::thread tick_thread_;
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  bool started_ = false;
  std::int64_t started_at_ns_ = 0;
  TickStats tick_stats_;                         // tick thread only
  std::uint64_t ranks_dropped_ = 0;              // tick thread only: forgotten + evicted
  bool trim_pending_ = false;                    // tick thread only
  std::string curve_public_key_;                 // set by start()
  std::optional<std::size_t> curve_allow_list_;  // set by start()
  std::optional<CurveKeyPair> keys_;             // set by start() when needed
};

}  // namespace stallwatch::collector
