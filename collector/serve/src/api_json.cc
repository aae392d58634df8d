// SPDX-License-Identifier: MIT
#include "api_json.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "engine/event_class.h"
#include "stallwatch/device_lane.h"

namespace stallwatch::collector {
namespace {

constexpr std::array kColourPriority{
    EventClass::kDeviceBusy, EventClass::kFetch, EventClass::kCompute, EventClass::kComm,
    EventClass::kIo,         EventClass::kAppIo, EventClass::kPipeline};

std::string_view colour_class(ClassMask classes) {
  for (EventClass c : kColourPriority) {
    if ((classes & class_bit(c)) != 0) return to_string(c);
  }
  return "other";
}

std::string_view role_of(const RankSnapshot* rank, std::int32_t pid) {
  if (rank != nullptr) {
    for (const ProcessSnapshot& p : rank->processes) {
      if (p.pid == pid) return p.role == ProcessRole::kWorker ? "worker" : "main";
    }
  }
  return "main";
}

// "GPU 0 · stream 7", or "GPU 0 (device)" for the device-wide lane.
std::string lane_label(std::uint32_t tid) {
  std::string label = "GPU " + std::to_string(wire::lane_device(tid));
  if (wire::lane_stream(tid) == wire::kDeviceWideStream) return label + " (device)";
  return label + " · stream " + std::to_string(wire::lane_stream(tid));
}

void write_pairs(JsonWriter& w, const std::vector<std::pair<std::string, std::string>>& pairs) {
  w.begin_object();
  for (const auto& [k, v] : pairs)
    w.escaped_key(k).string(v);
  w.end_object();
}

void write_optional(JsonWriter& w, const std::optional<std::int64_t>& v) {
  if (v) {
    w.integer(*v);
  } else {
    w.null();
  }
}

}  // namespace

std::string healthz_json(const DaemonStatus& status) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("status").string("ok");
  w.key("version").string(status.version);
  w.key("uptime_seconds").number(status.uptime_seconds);
  w.key("tick").integer(status.tick);
  w.end_object();
  return out;
}

namespace {

void write_tree_status(JsonWriter& w, const TreeStatus& t) {
  const auto strings = [&w](const std::vector<std::string>& list) {
    w.begin_array();
    for (const std::string& e : list)
      w.string(e);
    w.end_array();
  };
  w.key("tree").begin_object();
  w.key("upstream");
  if (t.upstream.empty()) {
    w.null();
  } else {
    w.string(t.upstream);
  }
  w.key("node").string(t.node);
  w.key("upstream_curve").boolean(t.upstream_curve);
  w.key("reports_sent").integer(t.reports_sent);
  w.key("reports_unsent").integer(t.reports_unsent);
  w.key("bytes_sent").integer(t.bytes_sent);
  w.key("listen");
  strings(t.listen);
  w.key("curve_listen");
  strings(t.curve_listen);
  w.key("nodes").integer(t.nodes);
  w.key("remote_ranks").integer(t.remote_ranks);
  w.key("reports_received").integer(t.reports_received);
  w.key("reports_rejected").integer(t.reports_rejected);
  w.key("bytes_received").integer(t.bytes_received);
  w.key("last_rejection").string(t.last_rejection);
  w.key("timelines_fetched").integer(t.timelines_fetched);
  w.key("timeline_fetch_failures").integer(t.timeline_fetch_failures);
  w.key("last_timeline_failure").string(t.last_timeline_failure);
  w.key("series_fetched").integer(t.series_fetched);
  w.key("series_fetch_failures").integer(t.series_fetch_failures);
  w.key("last_series_failure").string(t.last_series_failure);
  w.end_object();
}

// A rank's waits for its peers that touch [from_ns, to_ns], as an array.
void write_peer_waits(JsonWriter& w, const std::vector<PeerWaitSpan>& waits, std::int64_t from_ns,
                      std::int64_t to_ns) {
  w.begin_array();
  for (const PeerWaitSpan& p : waits) {
    if (p.end_ns < from_ns || p.start_ns > to_ns) continue;
    w.begin_object();
    w.key("start_ns").integer(p.start_ns);
    w.key("end_ns").integer(p.end_ns);
    w.key("waiting_for").integer(p.waiting_for);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string status_json(const PublishedState& state, const SnapshotJson& view,
                        const ServeStats& http) {
  const DaemonStatus& s = state.status;
  const Snapshot& snap = view.snapshot();
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("version").string(s.version);
  w.key("uptime_seconds").number(s.uptime_seconds);
  w.key("tick").integer(s.tick);
  w.key("tick_ms").integer(s.tick_ms);
  w.key("tick_seconds_last").number(s.tick_seconds_last);
  w.key("tick_seconds_max").number(s.tick_seconds_max);
  w.key("tick_seconds_p50").number(s.tick_seconds_p50);
  w.key("tick_seconds_p99").number(s.tick_seconds_p99);
  w.key("tick_cpu_seconds_last").number(s.tick_cpu_seconds_last);
  w.key("tick_cpu_seconds_p99").number(s.tick_cpu_seconds_p99);
  w.key("ingest").begin_object();
  w.key("endpoints").begin_array();
  for (const std::string& e : s.ingest_endpoints)
    w.string(e);
  w.end_array();
  w.key("frames_received").integer(s.frames_received);
  w.key("bytes_received").integer(s.bytes_received);
  w.key("events_received").integer(s.events_received);
  w.key("invalid_frames").begin_object();
  for (const auto& [reason, count] : s.invalid_frames)
    w.escaped_key(reason).integer(count);
  w.end_object();
  w.key("ingest_lag_seconds").number(s.ingest_lag_seconds);
  w.key("connections_accepted").integer(s.connections_accepted);
  w.key("connections_closed").integer(s.connections_closed);
  w.key("curve_endpoints").begin_array();
  for (const std::string& e : s.curve_endpoints)
    w.string(e);
  w.end_array();
  w.key("curve_public_key");
  if (s.curve_public_key.empty()) {
    w.null();
  } else {
    w.string(s.curve_public_key);
  }
  w.key("curve_allow_list");
  if (s.curve_allow_list) {
    w.integer(*s.curve_allow_list);
  } else {
    w.null();
  }
  w.key("rejected_connections").begin_object();
  for (const auto& [reason, count] : s.rejected_connections)
    w.escaped_key(reason).integer(count);
  w.end_object();
  w.end_object();
  w.key("hosts").begin_array();
  for (const HostClock& h : snap.hosts) {
    w.begin_object();
    w.key("host").string(h.host);
    w.key("clock_offset_seconds").number(static_cast<double>(h.offset_ns) / 1e9);
    w.key("clock_warning").boolean(h.warning);
    w.key("batches").integer(h.samples);
    w.key("last_batch_ns").integer(h.last_batch_ns);
    w.end_object();
  }
  w.end_array();
  w.key("clock_warning_seconds").number(static_cast<double>(snap.clock_warning_ns) / 1e9);
  w.key("engine").begin_object();
  w.key("ranks").integer(snap.stats.ranks);
  w.key("sources").integer(snap.stats.sources);
  w.key("late_events").integer(snap.stats.late_events);
  w.key("evicted_ranks").integer(snap.stats.evicted_ranks);
  w.key("forgotten_ranks").integer(snap.stats.forgotten_ranks);
  w.key("forgotten_jobs").integer(snap.stats.forgotten_jobs);
  w.key("rejected_sources").integer(snap.stats.rejected_sources);
  w.key("approx_memory_bytes").integer(snap.stats.approx_memory_bytes);
  w.key("names").integer(s.names_interned);
  w.key("names_overflowed").integer(s.names_overflowed);
  w.end_object();
  write_tree_status(w, s.tree);
  w.key("journal");
  if (s.journal.enabled) {
    w.begin_object();
    w.key("writing").boolean(s.journal.writing);
    w.key("error");
    if (s.journal.error.empty()) {
      w.null();
    } else {
      w.string(s.journal.error);
    }
    w.key("records_written").integer(s.journal.records_written);
    w.key("records_unwritten").integer(s.journal.records_unwritten);
    w.key("bytes_written").integer(s.journal.bytes_written);
    w.end_object();
  } else {
    w.null();
  }
  w.key("http").begin_object();
  w.key("connections_active").integer(http.connections_active);
  w.key("connections_accepted").integer(http.connections_accepted);
  w.key("connections_evicted").integer(http.connections_evicted);
  w.key("connections_refused").integer(http.connections_refused);
  w.key("timeouts").integer(http.timeouts);
  w.end_object();
  w.key("alert_sinks").begin_array();
  for (const SinkStats& sink : s.alert_sinks) {
    w.begin_object();
    w.key("name").string(sink.name);
    w.key("kind").string(sink.kind);
    w.key("target").string(sink.target);
    w.key("sent").integer(sink.sent);
    w.key("failed_attempts").integer(sink.failed_attempts);
    w.key("dropped").begin_object();
    w.key("queue_full").integer(sink.dropped_queue_full);
    w.key("retries").integer(sink.dropped_retries);
    w.key("rate_limited").integer(sink.dropped_rate_limited);
    w.end_object();
    w.key("queued").integer(sink.queued);
    w.end_object();
  }
  w.end_array();
  w.key("counters");
  SnapshotJson::write_counters(w, snap.counters);
  w.key("windows");
  view.write_window_names(w);
  w.key("verdict_window").string(view.verdict_window());
  w.end_object();
  return out;
}

std::string timeline_json(const Timeline& t, const RankSnapshot* rank) {
  std::vector<std::pair<std::int32_t, std::uint32_t>> threads;
  for (const TimelineRegion& r : t.regions)
    threads.emplace_back(r.pid, r.tid);
  for (const TimelineMark& m : t.marks)
    threads.emplace_back(m.pid, m.tid);
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());

  std::string out;
  out.reserve(128 + t.regions.size() * 160);
  JsonWriter w(out);
  w.begin_object();
  w.key("job").string(t.job);
  w.key("rank").integer(t.rank);
  w.key("from_ns").integer(t.from_ns);
  w.key("to_ns").integer(t.to_ns);
  w.key("truncated").boolean(t.truncated);
  w.key("threads").begin_array();
  for (const auto& [pid, tid] : threads) {
    w.begin_object().key("pid").integer(pid).key("tid").integer(tid);
    w.key("role").string(role_of(rank, pid));
    if (wire::is_device_lane(tid)) {
      w.key("device").integer(wire::lane_device(tid));
      w.key("stream");
      if (wire::lane_stream(tid) == wire::kDeviceWideStream) {
        w.null();
      } else {
        w.integer(wire::lane_stream(tid));
      }
      w.key("label").string(lane_label(tid));
    }
    w.end_object();
  }
  w.end_array();
  w.key("regions").begin_array();
  for (const TimelineRegion& r : t.regions) {
    w.begin_object();
    w.key("start_ns").integer(r.start_ns);
    w.key("end_ns").integer(r.end_ns);
    w.key("open").boolean(r.open);
    w.key("pid").integer(r.pid);
    w.key("tid").integer(r.tid);
    w.key("class").string(colour_class(r.classes));
    w.key("classes").begin_array();
    for (int c = 0; c < kEventClassCount; ++c) {
      const auto cls = static_cast<EventClass>(c);
      if ((r.classes & class_bit(cls)) != 0) w.string(to_string(cls));
    }
    w.end_array();
    w.key("cat").string(r.cat);
    w.key("name").string(r.name);
    w.key("loop_end").boolean(r.loop_end);
    w.end_object();
  }
  w.end_array();
  w.key("marks").begin_array();
  for (const TimelineMark& m : t.marks) {
    w.begin_object();
    w.key("ts_ns").integer(m.ts_ns);
    w.key("pid").integer(m.pid);
    w.key("tid").integer(m.tid);
    w.key("name").string(m.name);
    w.key("value").integer(m.value);
    w.end_object();
  }
  w.end_array();
  w.key("peer_waits");
  write_peer_waits(w, t.peer_waits, t.from_ns, t.to_ns);
  w.end_object();
  return out;
}

namespace {

// The integer after `"key":` in `body`, if any.
std::optional<std::int64_t> integer_field(std::string_view body, std::string_view key) {
  const std::string pattern = "\"" + std::string(key) + "\":";
  const std::size_t at = body.find(pattern);
  if (at == std::string_view::npos) return std::nullopt;
  std::int64_t value = 0;
  const char* first = body.data() + at + pattern.size();
  const auto [end, ec] = std::from_chars(first, body.data() + body.size(), value);
  if (ec != std::errc{} || end == first) return std::nullopt;
  return value;
}

}  // namespace

std::string with_peer_waits(std::string body, const std::vector<PeerWaitSpan>& waits) {
  constexpr std::string_view kKey = "\"peer_waits\":";
  const std::size_t at = body.rfind(kKey);
  const auto from = integer_field(body, "from_ns");
  const auto to = integer_field(body, "to_ns");
  if (at == std::string::npos || !from || !to || body.back() != '}') return body;
  body.resize(at + kKey.size());
  JsonWriter w(body);
  write_peer_waits(w, waits, *from, *to);
  body.push_back('}');
  return body;
}

std::string series_json(const Series& s, std::string_view window,
                        const std::vector<std::pair<std::string, std::string>>& failed_nodes) {
  constexpr double kNanosPerSecond = 1e9;
  std::string out;
  JsonWriter w(out);
  const auto write_values = [&w](const std::vector<double>& values) {
    w.begin_array();
    for (double v : values)
      w.number(v);
    w.end_array();
  };
  w.begin_object();
  w.key("job").string(s.job);
  w.key("metric").string(s.metric);
  w.key("window").string(window);
  w.key("step_seconds").number(static_cast<double>(s.step_ns) / kNanosPerSecond);
  w.key("t").begin_array();
  for (std::int64_t t : s.t_ns)
    w.number(static_cast<double>(t) / kNanosPerSecond);
  w.end_array();
  w.key("ranks").begin_array();
  for (std::size_t i = 0; i < s.ranks.size(); ++i) {
    w.begin_object().key("rank").integer(s.ranks[i]).key("values");
    write_values(i < s.values.size() ? s.values[i] : std::vector<double>{});
    w.end_object();
  }
  w.end_array();
  w.key("mean");
  write_values(s.mean);
  w.key("max");
  write_values(s.max);
  w.key("failed_nodes").begin_array();
  for (const auto& [node, error] : failed_nodes)
    w.begin_object().key("node").string(node).key("error").string(error).end_object();
  w.end_array();
  w.end_object();
  return out;
}

void write_alerts(JsonWriter& w, const std::vector<AlertView>& alerts) {
  w.begin_array();
  for (const AlertView& a : alerts) {
    w.begin_object();
    w.key("id").string(a.id);
    w.key("name").string(a.name);
    w.key("state").string(a.state);
    w.key("severity").string(a.severity);
    w.key("job").string(a.job);
    w.key("rank");
    if (a.rank) {
      w.integer(*a.rank);
    } else {
      w.null();
    }
    w.key("scope").string(a.scope);
    w.key("metric").string(a.metric);
    w.key("window").string(a.window);
    w.key("value").number(a.value);
    w.key("threshold").number(a.threshold);
    w.key("verdict");
    if (a.verdict.empty()) {
      w.null();
    } else {
      w.string(a.verdict);
    }
    w.key("cause");
    if (a.cause.empty() || a.cause == "none") {
      w.null();
    } else {
      w.string(a.cause);
    }
    w.key("labels");
    write_pairs(w, a.labels);
    w.key("annotations");
    write_pairs(w, a.annotations);
    w.key("active_since_ns").integer(a.active_since_ns);
    w.key("fired_at_ns");
    write_optional(w, a.fired_at_ns);
    w.key("resolved_at_ns");
    write_optional(w, a.resolved_at_ns);
    w.end_object();
  }
  w.end_array();
}

std::string alerts_json(const std::vector<AlertView>& alerts) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().key("alerts");
  write_alerts(w, alerts);
  w.end_object();
  return out;
}

std::string error_json(unsigned status, std::string_view message) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().key("error").string(message).key("status").integer(status).end_object();
  return out;
}

std::string hello_json(const PublishedState& state, const SnapshotJson& view) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("type").string("hello");
  w.key("version").string(state.status.version);
  w.key("tick_ms").integer(state.status.tick_ms);
  w.key("windows");
  view.write_window_names(w);
  w.key("verdict_window").string(view.verdict_window());
  w.end_object();
  return out;
}

std::string tick_head_json(const PublishedState& state, const SnapshotJson& view) {
  const Snapshot& snap = view.snapshot();
  std::string out;
  out.reserve(1024 + snap.jobs.size() * 8192);
  JsonWriter w(out);
  w.begin_object();
  w.key("type").string("tick");
  w.key("tick").integer(snap.tick);
  w.key("now_ns").integer(snap.now_ns);
  w.key("jobs").begin_array();
  for (const JobSnapshot& job : snap.jobs)
    view.write_job_summary(w, job);
  w.end_array();
  w.key("alerts");
  write_alerts(w, state.alerts);
  w.key("job");
  return out;
}

}  // namespace stallwatch::collector
