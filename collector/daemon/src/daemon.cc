// SPDX-License-Identifier: MIT
#include "daemon.h"

#include <spdlog/spdlog.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <chrono>

#include "alerts/alerting.h"
#include "engine_host.h"
#include "ingest/batch_decoder.h"
#include "ingest_loop.h"
#include "journal.h"
#include "keys/allow_list.h"
#include "keys/state_dir.h"
#include "serve/http_server.h"
#include "stallwatch/version.h"
#include "systemd_notify.h"
#include "tree_link.h"
#include "web/web_assets.h"

namespace stallwatch::collector {
namespace {

ServeConfig serve_config(const DaemonConfig& c) {
  ServeConfig s;
  s.host = c.http_host;
  s.port = c.http_port;
  s.max_connections = c.http_max_connections;
  s.read_timeout = std::chrono::milliseconds(c.http_read_timeout_ns / 1'000'000);
  s.idle_timeout = std::chrono::milliseconds(c.http_idle_timeout_ns / 1'000'000);
  s.bearer_token = c.http_token;
  s.tls_cert_file = c.http_tls_cert;
  s.tls_key_file = c.http_tls_key;
  s.timeline_max_seconds = c.engine.timeline_ns / kNsPerSecond;
  s.series_max_seconds = c.engine.history_ns / kNsPerSecond;
  s.prometheus = c.prometheus;
  s.static_files = [](std::string_view path) -> std::optional<StaticFile> {
    const WebAsset* asset = find_web_asset(path);
    if (asset == nullptr) return std::nullopt;
    return StaticFile{asset->content, asset->content_type};
  };
  return s;
}

}  // namespace

Daemon::Daemon(DaemonConfig config) : config_(std::move(config)) {}

Daemon::~Daemon() {
  stop();
}

void Daemon::reload() {
  if (!http_ || config_.http_tls_cert.empty()) {
    spdlog::info("SIGHUP: the API is not served over TLS, nothing to reload");
    return;
  }
  if (auto err = http_->reload_tls(); !err.empty()) {
    spdlog::error("SIGHUP: new TLS certificate refused, still serving the previous one: {}", err);
  } else {
    spdlog::info("SIGHUP: reloaded TLS certificate '{}' and key '{}' for new connections",
                 config_.http_tls_cert, config_.http_tls_key);
  }
}

std::uint16_t Daemon::http_port() const {
  return http_ ? http_->port() : 0;
}

std::string Daemon::start() {
  started_at_ns_ = collector_now_ns();
  host_ = std::make_unique<EngineHost>(config_.engine);
  std::unique_ptr<JournalWriter> journal;
  if (config_.journal_dir) {
    restore_journal();
    journal = std::make_unique<JournalWriter>(*config_.journal_dir, config_.journal_max_bytes,
                                              config_.journal_max_age_ns);
    if (auto err = journal->open(collector_now_ns()); !err.empty()) return err;
  }
  ingest_ = std::make_unique<IngestLoop>(*host_, std::move(journal));
  if (auto err = ingest_->bind(config_.ingest_endpoints); !err.empty()) {
    return "cannot listen for agents on " + err;
  }
  if (auto err = load_keys(); !err.empty()) return err;
  if (auto err = bind_curve(); !err.empty()) return err;
  // What the journal restored is in the answer to the first request: a state
  // is published before the HTTP server listens (the tree and the alerts join
  // at the next tick, below).
  tick_once(collector_now_ns());
  tree_ = std::make_unique<TreeLink>(config_);
  host_->set_tree(tree_.get());
  http_ = std::make_unique<HttpServer>(serve_config(config_), *host_);
  if (auto err = http_->start(); !err.empty()) return err;
  if (auto err = tree_->start(keys_, http_->port()); !err.empty()) return err;
  alerting_ = std::make_unique<Alerting>(
      config_.alerts, config_.engine.windows_ns,
      config_.alerts.external_url.empty()
          ? dashboard_base_url(config_.http_host, http_->port(), !config_.http_tls_cert.empty())
          : config_.alerts.external_url,
      config_.journal_dir ? *config_.journal_dir + "/alerts.json" : std::string());
  alerting_->start();

  tick_once(collector_now_ns());
  ingest_->start();
  tick_thread_ = std::thread([this] { tick_loop(); });
  started_ = true;

  for (const auto& e : ingest_->endpoints()) {
    const auto& curve = ingest_->curve_endpoints();
    const bool secured = std::find(curve.begin(), curve.end(), e) != curve.end();
    spdlog::info("listening for agents on {}{}", e, secured ? " (CURVE)" : "");
  }
  spdlog::info("dashboard and API on {}://{}:{}/", config_.http_tls_cert.empty() ? "http" : "https",
               config_.http_host, http_->port());
  systemd_notify_ready("stallwatchd " + std::string(kVersion) + " serving on " + config_.http_host +
                       ":" + std::to_string(http_->port()));
  return {};
}

std::string Daemon::load_keys() {
  if (config_.curve_endpoints.empty() && !tree_needs_keys(config_.tree)) return {};
  const std::string dir = config_.state_dir.empty() ? default_state_dir() : config_.state_dir;
  std::string error;
  bool created = false;
  keys_ = load_or_create_key_pair(dir, created, error);
  if (!keys_) return "CURVE key pair: " + error;
  if (created) spdlog::info("created the collector's CURVE key pair in {}", dir);
  return {};
}

std::string Daemon::bind_curve() {
  if (config_.curve_endpoints.empty()) return {};
  std::string error;
  const auto& pair = keys_;
  CurveServerKeys keys{pair->secret_key, {}};
  if (config_.allow_list_path) {
    auto allowed = read_allow_list(*config_.allow_list_path, error);
    if (!allowed) return error;
    if (allowed->empty()) {
      return "allow-list '" + *config_.allow_list_path + "' holds no key: no agent could connect";
    }
    keys.allowed_keys = std::move(*allowed);
    curve_allow_list_ = keys.allowed_keys.size();
  }
  if (auto err = ingest_->bind_curve(keys, config_.curve_endpoints); !err.empty()) {
    return "cannot listen for agents on " + err;
  }
  curve_public_key_ = pair->public_key;
  spdlog::info("CURVE public key of this collector (STALLWATCH_COLLECTOR_KEY): {}",
               curve_public_key_);
  return {};
}

void Daemon::stop() {
  {
    std::lock_guard lock(stop_mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (started_) systemd_notify_stopping();
  if (tick_thread_.joinable()) tick_thread_.join();
  if (ingest_) ingest_->stop();
  if (tree_) tree_->stop();
  if (http_) http_->stop();
  if (alerting_) alerting_->stop();
}

void Daemon::restore_journal() {
  const std::int64_t now = collector_now_ns();
  const std::int64_t since = now - config_.engine.history_ns;
  std::size_t frames = 0;
  std::lock_guard lock(host_->mutex());
  BatchDecoder decoder(host_->names());
  DecodedBatch batch;
  std::int64_t next_tick = 0;
  for (const auto& segment : journal_segments(*config_.journal_dir)) {
    const auto read = read_journal_segment(
        segment, [&](std::span<const std::uint8_t> frame, std::int64_t recv_ns) {
          if (recv_ns < since || recv_ns > now) return;
          if (decoder.decode(frame, batch)) return;
          if (next_tick == 0) next_tick = recv_ns + config_.tick_ns;
          while (recv_ns >= next_tick) {
            host_->engine().tick(next_tick);
            next_tick += config_.tick_ns;
          }
          host_->engine().ingest(batch, recv_ns);
          ++frames;
        });
    if (!read.error.empty()) spdlog::warn("journal: skipped {}", read.error);
    for (const auto& problem : read.problems) {
      spdlog::warn("journal: {}", describe(segment, problem));
    }
  }
  if (frames > 0) {
    spdlog::info("journal: restored {} batches from {}", frames, *config_.journal_dir);
  }
}

void Daemon::tick_loop() {
  using clock = std::chrono::steady_clock;
  const auto period = std::chrono::nanoseconds(config_.tick_ns);
  auto next = clock::now() + period;
  while (true) {
    {
      std::unique_lock lock(stop_mutex_);
      if (stop_cv_.wait_until(lock, next, [this] { return stopping_; })) return;
    }
    try {
      tick_once(collector_now_ns());
    } catch (const std::exception& e) {
      spdlog::error("tick failed, skipping it: {}", e.what());
    }
    systemd_notify_watchdog();
    next += period;
    if (next < clock::now()) next = clock::now() + period;  // fell behind: don't burst
  }
}

void Daemon::tick_once(std::int64_t now_ns) {
  auto state = std::make_shared<PublishedState>();
  std::shared_ptr<const Snapshot> local;
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_seconds();
  {
    std::lock_guard lock(host_->mutex());
    local = host_->engine().tick(now_ns);
    const IngestStats& in = ingest_->stats();
    DaemonStatus& s = state->status;
    s.frames_received = in.frames_received;
    s.bytes_received = in.bytes_received;
    s.events_received = in.events_received;
    for (std::size_t r = 0; r < kFrameErrorReasonCount; ++r) {
      s.invalid_frames.emplace_back(
          std::string(frame_error_reason_name(static_cast<FrameErrorReason>(r))),
          in.invalid_frames[r]);
    }
    s.names_interned = host_->names().size();
    s.names_overflowed = host_->names().overflowed();
  }
  // The tick's time includes the tree's merge and send, so that what a head
  // or an unreachable one costs shows in tick_seconds.
  state->snapshot = tree_ ? tree_->merge(std::move(local), now_ns) : std::move(local);
  if (tree_) tree_->send(*state->snapshot);
  tick_stats_.add(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                  thread_cpu_seconds() - cpu0);
  DaemonStatus& s = state->status;
  s.version = kVersion;
  s.uptime_seconds = static_cast<double>(now_ns - started_at_ns_) / 1e9;
  s.tick = state->snapshot->tick;
  s.tick_ms = config_.tick_ns / 1'000'000;
  s.tick_seconds_last = tick_stats_.wall_last();
  s.tick_seconds_max = tick_stats_.wall_max();
  s.tick_seconds_p50 = tick_stats_.wall_quantile(0.50);
  s.tick_seconds_p99 = tick_stats_.wall_quantile(0.99);
  s.tick_cpu_seconds_last = tick_stats_.cpu_last();
  s.tick_cpu_seconds_p99 = tick_stats_.cpu_quantile(0.99);
  s.connections_accepted = ingest_->connections_accepted();
  s.connections_closed = ingest_->connections_closed();
  s.ingest_endpoints = ingest_->endpoints();
  s.curve_endpoints = ingest_->curve_endpoints();
  s.curve_public_key = curve_public_key_;
  s.curve_allow_list = curve_allow_list_;
  for (std::size_t r = 0; r < kHandshakeRejectionCount; ++r) {
    const auto reason = static_cast<HandshakeRejection>(r);
    s.rejected_connections.emplace_back(std::string(handshake_rejection_name(reason)),
                                        ingest_->rejected(reason));
  }
  s.ingest_lag_seconds = static_cast<double>(ingest_->take_max_lag_ns()) / 1e9;
  s.journal = ingest_->journal_status();
  if (alerting_) {
    state->alerts = alerting_->on_tick(*state->snapshot);
    s.alert_sinks = alerting_->sink_stats();
  }
  if (tree_) tree_->fill(s.tree);
  const EngineStats& es = state->snapshot->stats;
  const std::uint64_t dropped = es.forgotten_ranks + es.evicted_ranks;
  host_->publish(std::move(state));
  if (http_) http_->on_tick();
  release_dropped_ranks(dropped);
}

// A forgotten or evicted rank's memory is freed in the middle of the heap,
// which the C library keeps (the daemon's RSS stays at its peak while ranks
// come and go) until it is trimmed. Trim one tick after ranks were dropped,
// when the snapshot that still held them has been replaced.
void Daemon::release_dropped_ranks(std::uint64_t dropped) {
  if (trim_pending_) {
    trim_pending_ = false;
#if defined(__GLIBC__)
    const auto t0 = std::chrono::steady_clock::now();
    ::malloc_trim(0);
    spdlog::debug(
        "released the memory of dropped ranks in {:.1f} ms",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
#endif
  }
  if (dropped != ranks_dropped_) {
    ranks_dropped_ = dropped;
    trim_pending_ = true;
  }
}

}  // namespace stallwatch::collector
