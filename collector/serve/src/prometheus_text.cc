// SPDX-License-Identifier: MIT
#include "serve/prometheus_text.h"

#include <array>
#include <string_view>
#include <vector>

#include "exposition.h"
#include "prometheus_rank_families.h"
#include "prometheus_top_files.h"

namespace stallwatch::collector {
namespace {

constexpr std::array<std::string_view, 3> kAlertStates{"pending", "firing", "resolved"};

double as_double(std::uint64_t v) {
  return static_cast<double>(v);
}

void write_daemon_families(Exposition& e, const PublishedState& state, const ServeStats& serve) {
  const DaemonStatus& s = state.status;
  e.family("stallwatch_build_info", "gauge", "Always 1; the daemon's version.");
  e.sample("stallwatch_build_info", label("version", s.version), 1);
  e.family("stallwatch_uptime_seconds", "gauge", "Seconds since the daemon started.");
  e.sample("stallwatch_uptime_seconds", {}, s.uptime_seconds);
  e.family("stallwatch_ticks_total", "counter", "Engine ticks since start.");
  e.sample("stallwatch_ticks_total", {}, as_double(s.tick));
  e.family("stallwatch_tick_duration_seconds", "gauge", "Time the last engine tick took.");
  e.sample("stallwatch_tick_duration_seconds", {}, s.tick_seconds_last);
  e.family("stallwatch_tick_duration_max_seconds", "gauge", "Longest engine tick since start.");
  e.sample("stallwatch_tick_duration_max_seconds", {}, s.tick_seconds_max);
  e.family("stallwatch_tick_duration_p50_seconds", "gauge",
           "Median engine tick wall time over the last ten minutes.");
  e.sample("stallwatch_tick_duration_p50_seconds", {}, s.tick_seconds_p50);
  e.family("stallwatch_tick_duration_p99_seconds", "gauge",
           "99th percentile engine tick wall time over the last ten minutes.");
  e.sample("stallwatch_tick_duration_p99_seconds", {}, s.tick_seconds_p99);
  e.family("stallwatch_tick_cpu_seconds", "gauge", "CPU time of the last engine tick.");
  e.sample("stallwatch_tick_cpu_seconds", {}, s.tick_cpu_seconds_last);

  e.family("stallwatch_ingest_frames_received_total", "counter",
           "Frames received on the ingest sockets.");
  e.sample("stallwatch_ingest_frames_received_total", {}, as_double(s.frames_received));
  e.family("stallwatch_ingest_bytes_received_total", "counter",
           "Bytes received on the ingest sockets.");
  e.sample("stallwatch_ingest_bytes_received_total", {}, as_double(s.bytes_received));
  e.family("stallwatch_ingest_events_received_total", "counter", "Events in valid frames.");
  e.sample("stallwatch_ingest_events_received_total", {}, as_double(s.events_received));
  e.family("stallwatch_ingest_invalid_frames_total", "counter",
           "Frames dropped as invalid, by reason.");
  for (const auto& [reason, count] : s.invalid_frames) {
    e.sample("stallwatch_ingest_invalid_frames_total", label("reason", reason), as_double(count));
  }
  e.family("stallwatch_ingest_lag_seconds", "gauge",
           "How far ingest is behind the frames waiting on its sockets.");
  e.sample("stallwatch_ingest_lag_seconds", {}, s.ingest_lag_seconds);
  e.family("stallwatch_ingest_connections_accepted_total", "counter",
           "Agent connections accepted on the ingest sockets.");
  e.sample("stallwatch_ingest_connections_accepted_total", {}, as_double(s.connections_accepted));
  e.family("stallwatch_ingest_connections_closed_total", "counter",
           "Agent connections closed, including senders cut for a frame over the size limit.");
  e.sample("stallwatch_ingest_connections_closed_total", {}, as_double(s.connections_closed));
  e.family("stallwatch_ingest_rejected_connections_total", "counter",
           "Agent connections refused in the CURVE handshake, by reason.");
  for (const auto& [reason, count] : s.rejected_connections) {
    e.sample("stallwatch_ingest_rejected_connections_total", label("reason", reason),
             as_double(count));
  }

  const TreeStatus& t = s.tree;
  e.family("stallwatch_tree_reports_sent_total", "counter",
           "Report frames this node handed to its upstream socket.");
  e.sample("stallwatch_tree_reports_sent_total", {}, as_double(t.reports_sent));
  e.family("stallwatch_tree_reports_unsent_total", "counter",
           "Report frames this node dropped: head unreachable or send queue full.");
  e.sample("stallwatch_tree_reports_unsent_total", {}, as_double(t.reports_unsent));
  e.family("stallwatch_tree_reports_received_total", "counter",
           "Report frames this head received from its nodes.");
  e.sample("stallwatch_tree_reports_received_total", {}, as_double(t.reports_received));
  e.family("stallwatch_tree_reports_rejected_total", "counter",
           "Report frames this head refused (undecodable, other version or windows).");
  e.sample("stallwatch_tree_reports_rejected_total", {}, as_double(t.reports_rejected));
  e.family("stallwatch_tree_timeline_fetch_failures_total", "counter",
           "Remote ranks' timelines this head could not fetch from their nodes.");
  e.sample("stallwatch_tree_timeline_fetch_failures_total", {},
           as_double(t.timeline_fetch_failures));
  e.family("stallwatch_tree_series_fetch_failures_total", "counter",
           "Nodes that did not give this head their ranks' series of a job.");
  e.sample("stallwatch_tree_series_fetch_failures_total", {}, as_double(t.series_fetch_failures));
  e.family("stallwatch_tree_nodes", "gauge", "Nodes this head hears from.");
  e.sample("stallwatch_tree_nodes", {}, as_double(t.nodes));
  e.family("stallwatch_tree_remote_ranks", "gauge", "Ranks this head holds from its nodes.");
  e.sample("stallwatch_tree_remote_ranks", {}, as_double(t.remote_ranks));

  static const Snapshot kEmpty;
  const Snapshot& snap = state.snapshot ? *state.snapshot : kEmpty;
  e.family("stallwatch_host_clock_offset_seconds", "gauge",
           "Each agent host's clock minus the collector's, estimated from its batches.");
  for (const HostClock& h : snap.hosts) {
    e.sample("stallwatch_host_clock_offset_seconds", label("host", h.host),
             static_cast<double>(h.offset_ns) / 1e9);
  }
  e.family("stallwatch_ranks", "gauge", "Ranks the engine tracks.");
  e.sample("stallwatch_ranks", {}, as_double(snap.stats.ranks));
  e.family("stallwatch_sources", "gauge", "Agent processes the engine tracks.");
  e.sample("stallwatch_sources", {}, as_double(snap.stats.sources));
  e.family("stallwatch_evicted_ranks_total", "counter",
           "Ranks forgotten after finishing or going silent.");
  e.sample("stallwatch_evicted_ranks_total", {}, as_double(snap.stats.evicted_ranks));
  e.family("stallwatch_rejected_sources_total", "counter",
           "Sources refused over the rank or source limits.");
  e.sample("stallwatch_rejected_sources_total", {}, as_double(snap.stats.rejected_sources));
  e.family("stallwatch_engine_memory_bytes", "gauge", "Approximate memory held by the engine.");
  e.sample("stallwatch_engine_memory_bytes", {}, as_double(snap.stats.approx_memory_bytes));
  e.family("stallwatch_names", "gauge", "Distinct category and event names interned.");
  e.sample("stallwatch_names", {}, as_double(s.names_interned));
  e.family("stallwatch_names_overflowed_total", "counter",
           "Names not interned because the name table was full.");
  e.sample("stallwatch_names_overflowed_total", {}, as_double(s.names_overflowed));

  const auto counter = [&e](std::string_view name, std::string_view help, std::uint64_t v) {
    e.family(name, "counter", help);
    e.sample(name, {}, as_double(v));
  };
  const auto gauge = [&e](std::string_view name, std::string_view help, std::uint64_t v) {
    e.family(name, "gauge", help);
    e.sample(name, {}, as_double(v));
  };
  counter("stallwatch_http_connections_accepted_total", "HTTP connections accepted.",
          serve.connections_accepted);
  counter("stallwatch_http_connections_refused_total",
          "HTTP connections refused over the connection limit.", serve.connections_refused);
  counter("stallwatch_http_connections_evicted_total",
          "Idle HTTP connections closed to admit a new one at the connection limit.",
          serve.connections_evicted);
  gauge("stallwatch_http_connections", "Open HTTP and WebSocket connections.",
        serve.connections_active);
  counter("stallwatch_http_requests_total", "HTTP requests handled.", serve.requests);
  counter("stallwatch_http_bad_requests_total",
          "Malformed HTTP requests and requests over a size limit.", serve.bad_requests);
  counter("stallwatch_http_timeouts_total",
          "Connections closed because a client was too slow or idle.", serve.timeouts);
  counter("stallwatch_http_handler_errors_total", "Errors caught at the server's io loop.",
          serve.handler_errors);
  counter("stallwatch_http_tls_reloads_total",
          "TLS certificate and key pairs loaded again on SIGHUP.", serve.tls_reloads);
  counter("stallwatch_http_tls_reload_failures_total",
          "TLS pairs refused on SIGHUP (the previous pair kept serving).",
          serve.tls_reload_failures);
  gauge("stallwatch_websocket_sessions", "Open WebSocket sessions.", serve.websocket_sessions);
  counter("stallwatch_websocket_messages_sent_total", "WebSocket messages sent.",
          serve.websocket_messages_sent);
  counter("stallwatch_websocket_ticks_skipped_total",
          "Ticks not sent to a WebSocket client that could not keep up.",
          serve.websocket_ticks_skipped);
  counter("stallwatch_websocket_messages_rejected_total",
          "Client WebSocket messages oversized or not understood.",
          serve.websocket_messages_rejected);
}

void write_alert_family(Exposition& e, const std::vector<AlertView>& alerts) {
  e.family("stallwatch_alert_state", "gauge",
           "1 for the alert's state (pending, firing, resolved), else 0.");
  for (const AlertView& a : alerts) {
    std::string labels;
    append_label(labels, "alertname", a.name);
    append_label(labels, "job_id", a.job);
    append_label(labels, "rank", a.rank ? std::to_string(*a.rank) : std::string());
    append_label(labels, "severity", a.severity);
    for (std::string_view st : kAlertStates) {
      e.sample("stallwatch_alert_state", labels, label("state", st), a.state == st ? 1 : 0);
    }
  }
}

void write_alert_sink_families(Exposition& e, const std::vector<SinkStats>& sinks) {
  std::vector<std::string> labels;
  for (const SinkStats& s : sinks)
    labels.push_back(label("sink", s.name));
  e.family(
      "stallwatch_alert_notifications_sent_total", "counter",
      "Alert notifications (one alert firing or resolving, re-sends included) delivered, by sink.");
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    e.sample("stallwatch_alert_notifications_sent_total", labels[i], as_double(sinks[i].sent));
  }
  e.family("stallwatch_alert_delivery_failures_total", "counter",
           "Alert deliveries that failed, each retry counted, by sink.");
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    e.sample("stallwatch_alert_delivery_failures_total", labels[i],
             as_double(sinks[i].failed_attempts));
  }
  e.family("stallwatch_alert_notifications_dropped_total", "counter",
           "Alert notifications never delivered, by sink and reason (queue_full, retries, "
           "rate_limited).");
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    e.sample("stallwatch_alert_notifications_dropped_total", labels[i],
             label("reason", "queue_full"), as_double(sinks[i].dropped_queue_full));
    e.sample("stallwatch_alert_notifications_dropped_total", labels[i], label("reason", "retries"),
             as_double(sinks[i].dropped_retries));
    e.sample("stallwatch_alert_notifications_dropped_total", labels[i],
             label("reason", "rate_limited"), as_double(sinks[i].dropped_rate_limited));
  }
  e.family("stallwatch_alert_notifications_queued", "gauge",
           "Alert notifications waiting to be delivered, by sink.");
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    e.sample("stallwatch_alert_notifications_queued", labels[i], as_double(sinks[i].queued));
  }
}

}  // namespace

std::string prometheus_text(const PublishedState& state, const ServeStats& serve,
                            const PrometheusConfig& config) {
  const Snapshot* snap = state.snapshot.get();
  std::size_t ranks = 0;
  if (snap != nullptr) {
    for (const JobSnapshot& job : snap->jobs)
      ranks += job.ranks.size();
  }
  std::string out;
  out.reserve(32768 + ranks * (2048 + config.per_rank_windows_ns.size() * 2048));
  Exposition e(out);
  write_rank_families(e, snap, config);
  write_top_file_family(e, snap, config);
  write_job_families(e, snap, config);
  write_daemon_families(e, state, serve);
  write_alert_family(e, state.alerts);
  write_alert_sink_families(e, state.status.alert_sinks);
  return out;
}

}  // namespace stallwatch::collector
