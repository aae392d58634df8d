#include "serve/prometheus_text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "engine/metric_fields.h"
#include "serve/snapshot_json.h"
#include "text_escape.h"

namespace stallwatch::collector {
namespace {

constexpr std::array kVerdicts{Verdict::kIdle, Verdict::kDataStarved, Verdict::kIoBound,
                               Verdict::kHostBound, Verdict::kWellOverlapped};
constexpr std::array kRankStates{RankState::kActive, RankState::kSilent, RankState::kFinished};
constexpr std::array<std::string_view, 3> kAlertStates{"pending", "firing", "resolved"};

// Appends families and samples; label sets are passed pre-escaped.
class Exposition {
 public:
  explicit Exposition(std::string& out) : out_(out) {}

  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_.append("# HELP ").append(name).push_back(' ');
    append_help_escaped(out_, help);
    out_.append("\n# TYPE ").append(name).push_back(' ');
    out_.append(type).push_back('\n');
  }

  // `labels` is `a="x",b="y"` (may be empty); `extra` one more label or empty.
  void sample(std::string_view name, std::string_view labels, std::string_view extra,
              double value) {
    out_.append(name);
    if (!labels.empty() || !extra.empty()) {
      out_.push_back('{');
      out_.append(labels);
      if (!labels.empty() && !extra.empty()) out_.push_back(',');
      out_.append(extra);
      out_.push_back('}');
    }
    out_.push_back(' ');
    append_value(value);
    out_.push_back('\n');
  }

  void sample(std::string_view name, std::string_view labels, double value) {
    sample(name, labels, {}, value);
  }

 private:
  void append_value(double v) {
    if (std::isnan(v)) {
      out_.append("NaN");
    } else if (std::isinf(v)) {
      out_.append(v > 0 ? "+Inf" : "-Inf");
    } else {
      char buf[32];
      const auto r = std::to_chars(buf, buf + sizeof buf, v);
      out_.append(buf, r.ptr);
    }
  }

  std::string& out_;
};

void append_label(std::string& out, std::string_view name, std::string_view value) {
  if (!out.empty()) out.push_back(',');
  out.append(name).append("=\"");
  append_label_escaped(out, value);
  out.push_back('"');
}

std::string label(std::string_view name, std::string_view value) {
  std::string out;
  append_label(out, name, value);
  return out;
}

double as_double(std::uint64_t v) {
  return static_cast<double>(v);
}

// Pre-escaped label sets for every rank and every (rank, window).
struct RankLabels {
  const RankSnapshot* rank;
  std::string labels;                // job_id, rank
  std::vector<std::string> windows;  // job_id, rank, window; parallel to rank->windows
};

std::vector<RankLabels> rank_labels(const Snapshot& snap) {
  std::vector<RankLabels> out;
  for (const JobSnapshot& job : snap.jobs) {
    for (const RankSnapshot& rank : job.ranks) {
      RankLabels r{&rank, {}, {}};
      append_label(r.labels, "job_id", job.job);
      append_label(r.labels, "rank", std::to_string(rank.rank));
      r.windows.reserve(rank.windows.size());
      for (const WindowMetrics& m : rank.windows) {
        std::string l = r.labels;
        append_label(l, "window", window_name(m.window_ns));
        r.windows.push_back(std::move(l));
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

// NVML's latest sample per rank and device (absent until sampled).
void write_gpu_families(Exposition& e, const std::vector<RankLabels>& ranks) {
  static constexpr std::array<std::string_view, kGpuCounterCount> kHelp{
      "NVML GPU utilization, latest 1 Hz sample: percent of the sample period in which some "
      "kernel ran (a cross-check beside device_idle_ratio, not device-busy time).",
      "NVML SM clock, latest sample.",
      "NVML device memory used by every process on the device, latest sample.",
      "NVML power draw, latest sample.",
  };
  std::string name;
  for (std::size_t c = 0; c < kGpuCounterCount; ++c) {
    name.assign("stallwatch_gpu_").append(to_string(static_cast<GpuCounter>(c)));
    e.family(name, "gauge", kHelp[c]);
    for (const RankLabels& r : ranks) {
      for (const GpuDeviceCounters& d : r.rank->gpu_counters.devices) {
        if (!d.counters[c].sampled()) continue;
        e.sample(name, r.labels, label("device", std::to_string(d.device)), d.counters[c].latest);
      }
    }
  }
}

void write_rank_families(Exposition& e, const std::vector<RankLabels>& ranks) {
  std::string name;
  for (const MetricField& field : metric_fields()) {
    name.assign("stallwatch_").append(field.name());
    e.family(name, "gauge", field.help());
    for (const RankLabels& r : ranks) {
      for (std::size_t i = 0; i < r.windows.size(); ++i) {
        e.sample(name, r.windows[i], field.get(r.rank->windows[i]));
      }
    }
  }

  e.family("stallwatch_verdict", "gauge",
           "1 for the rank's verdict in the window (data-starved, io-bound, host-bound, "
           "well-overlapped, idle), else 0.");
  std::vector<std::string> verdict_labels;
  for (Verdict v : kVerdicts)
    verdict_labels.push_back(label("verdict", to_string(v)));
  for (const RankLabels& r : ranks) {
    for (std::size_t i = 0; i < r.windows.size(); ++i) {
      for (std::size_t k = 0; k < kVerdicts.size(); ++k) {
        e.sample("stallwatch_verdict", r.windows[i], verdict_labels[k],
                 r.rank->windows[i].verdict == kVerdicts[k] ? 1 : 0);
      }
    }
  }

  e.family("stallwatch_rank_state", "gauge",
           "1 for the rank's state (active, silent, finished), else 0.");
  std::vector<std::string> state_labels;
  for (RankState s : kRankStates)
    state_labels.push_back(label("state", to_string(s)));
  for (const RankLabels& r : ranks) {
    for (std::size_t k = 0; k < kRankStates.size(); ++k) {
      e.sample("stallwatch_rank_state", r.labels, state_labels[k],
               r.rank->state == kRankStates[k] ? 1 : 0);
    }
  }

  e.family("stallwatch_rank_info", "gauge",
           "Always 1; device_source says where device-busy time comes from.");
  for (const RankLabels& r : ranks) {
    e.sample("stallwatch_rank_info", r.labels,
             label("device_source", to_string(r.rank->device_source)), 1);
  }
  e.family("stallwatch_rank_epoch", "gauge", "Latest epoch started by the rank (-1 before any).");
  for (const RankLabels& r : ranks)
    e.sample("stallwatch_rank_epoch", r.labels, static_cast<double>(r.rank->epoch));
  e.family("stallwatch_rank_step", "gauge", "Latest step reported by the rank (-1 before any).");
  for (const RankLabels& r : ranks)
    e.sample("stallwatch_rank_step", r.labels, static_cast<double>(r.rank->step));

  write_gpu_families(e, ranks);

  struct CounterFamily {
    std::string_view name;
    std::string_view help;
    std::uint64_t Counters::*member;
  };
  static constexpr std::array kCounters{
      CounterFamily{"stallwatch_events_received_total", "Events received from the rank.",
                    &Counters::events_received},
      CounterFamily{"stallwatch_batches_received_total", "Batches received from the rank.",
                    &Counters::batches_received},
      CounterFamily{"stallwatch_agent_dropped_total", "Events the rank's agents had to drop.",
                    &Counters::agent_dropped},
      CounterFamily{"stallwatch_lost_batches_total", "Batches lost in transit (sequence gaps).",
                    &Counters::lost_batches},
      CounterFamily{"stallwatch_late_events_total",
                    "Events that arrived after their time was final.", &Counters::late_events},
      CounterFamily{"stallwatch_unpaired_events_total",
                    "Region ends without a begin, and begins never ended.",
                    &Counters::unpaired_events},
  };
  for (const CounterFamily& c : kCounters) {
    e.family(c.name, "counter", c.help);
    for (const RankLabels& r : ranks)
      e.sample(c.name, r.labels, as_double(r.rank->counters.*c.member));
  }
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
  gauge("stallwatch_http_connections", "Open HTTP and WebSocket connections.",
        serve.connections_active);
  counter("stallwatch_http_requests_total", "HTTP requests handled.", serve.requests);
  counter("stallwatch_http_bad_requests_total",
          "Malformed HTTP requests and requests over a size limit.", serve.bad_requests);
  counter("stallwatch_http_timeouts_total",
          "Connections closed because a client was too slow or idle.", serve.timeouts);
  counter("stallwatch_http_handler_errors_total", "Errors caught at the server's io loop.",
          serve.handler_errors);
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

std::string prometheus_text(const PublishedState& state, const ServeStats& serve) {
  std::string out;
  std::vector<RankLabels> ranks;
  if (state.snapshot) ranks = rank_labels(*state.snapshot);
  out.reserve(16384 + ranks.size() * 8192);
  Exposition e(out);
  write_rank_families(e, ranks);
  write_daemon_families(e, state, serve);
  write_alert_family(e, state.alerts);
  write_alert_sink_families(e, state.status.alert_sinks);
  return out;
}

}  // namespace stallwatch::collector
