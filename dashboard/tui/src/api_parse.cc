// SPDX-License-Identifier: MIT
#include "api_parse.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "api_fields.h"
#include "catalog/metric_table.h"
#include "catalog/vocabulary.h"

namespace stallwatch::tui {
namespace {

using Json = nlohmann::json;

using namespace api_fields;

// "rank 3: data-starved, costs the other 3 ranks 38 %", or "" for null.
std::string held_back_text(const Json& aggregate) {
  const Json* held = field(aggregate, "held_back");
  if (held == nullptr || !held->is_object()) return {};
  std::string out;
  for (const Json& r : array_or_empty(*held, "ranks")) {
    const auto rank = optional_int(r, "rank");
    if (!rank) continue;
    if (!out.empty()) out += "; ";
    out += "rank " + std::to_string(*rank) + ": " + text(r, "verdict");
    if (const std::string cause = text(r, "cause"); !cause.empty() && cause != "none") {
      out += " (" + cause + ")";
    }
  }
  if (out.empty()) return out;
  const auto others = optional_int(*held, "other_ranks").value_or(0);
  const auto cost = number(*held, "cost_ratio").value_or(0);
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f %%", cost * 100);
  return out + ", costs the other " + std::to_string(others) +
         (others == 1 ? " rank " : " ranks ") + percent;
}

std::vector<std::string> strings(const Json& object, const char* key) {
  std::vector<std::string> out;
  for (const Json& v : array_or_empty(object, key)) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

Metrics metrics(const Json& o) {
  Metrics m;
  m.window = text(o, "window");
  for (const catalog::MetricInfo& info : catalog::kMetrics) {
    if (info.kind == catalog::MetricKind::kCount) {
      const Json* f = field(o, info.name);
      if (f != nullptr && f->is_number_integer())
        m[info.id] = static_cast<double>(uint64(o, info.name));
    } else {
      m[info.id] = number(o, info.name);
    }
  }
  m.end_ns = int64(o, "end_ns");
  m.verdict = text(o, "verdict");
  m.cause = text(o, "cause");
  return m;
}

Counters counters(const Json& o) {
  Counters c;
  c.events_received = uint64(o, "events_received");
  c.batches_received = uint64(o, "batches_received");
  c.agent_dropped = uint64(o, "agent_dropped");
  c.lost_batches = uint64(o, "lost_batches");
  c.late_events = uint64(o, "late_events");
  c.unpaired_events = uint64(o, "unpaired_events");
  return c;
}

const Json& object_or_empty(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  const Json* f = field(object, key);
  return f != nullptr && f->is_object() ? *f : kEmpty;
}

JobSummary job_summary(const Json& o) {
  JobSummary j;
  j.job = text(o, "job");
  j.state = text(o, "state");
  j.ranks = uint64(o, "ranks");
  j.active_ranks = uint64(o, "active_ranks");
  j.verdict = text(o, "verdict");
  j.cause = text(o, "cause");
  j.device_source = text(o, "device_source");
  for (const auto& [name, value] : object_or_empty(o, "summary").items()) {
    Aggregate a;
    a.mean = metrics(object_or_empty(value, "mean"));
    a.max = metrics(object_or_empty(value, "max"));
    a.straggler_rank = optional_int(value, "straggler_rank");
    a.verdict = text(value, "verdict");
    a.held_back = held_back_text(value);
    a.cause = text(value, "cause");
    j.summary.emplace(name, std::move(a));
  }
  j.counters = counters(object_or_empty(o, "counters"));
  return j;
}

GpuReading gpu_reading(const Json& o) {
  GpuReading r;
  r.latest = number(o, "latest");
  for (const auto& [name, value] : object_or_empty(o, "mean").items()) {
    r.mean.emplace(name, number_value(value));
  }
  return r;
}

GpuCounters gpu_counters(const Json& o) {
  GpuCounters g;
  g.device = int64(o, "device");
  g.age_seconds = number(o, "age_seconds");
  g.utilization_percent = gpu_reading(object_or_empty(o, "utilization_percent"));
  g.sm_clock_mhz = gpu_reading(object_or_empty(o, "sm_clock_mhz"));
  g.memory_used_bytes = gpu_reading(object_or_empty(o, "memory_used_bytes"));
  g.power_watts = gpu_reading(object_or_empty(o, "power_watts"));
  return g;
}

FileIo file_io(const Json& o) {
  FileIo f;
  f.path = text(o, "path");
  f.io_seconds = number(o, "io_seconds");
  f.read_bytes = int64(o, "read_bytes");
  f.write_bytes = int64(o, "write_bytes");
  f.ops = int64(o, "ops");
  return f;
}

KernelTime kernel_time(const Json& o) {
  KernelTime k;
  k.name = text(o, "name");
  k.device_seconds = number(o, "device_seconds");
  k.count = int64(o, "count");
  return k;
}

RankRow rank_row(const Json& o) {
  RankRow r;
  r.rank = static_cast<std::int32_t>(int64(o, "rank"));
  r.state = text(o, "state");
  r.verdict = text(o, "verdict");
  r.cause = text(o, "cause");
  r.device_source = text(o, "device_source");
  r.clock_offset_seconds = number(o, "clock_offset_seconds").value_or(0);
  r.clock_warning = o.is_object() && o.value("clock_warning", false);
  r.watermark_ns = int64(o, "watermark_ns");
  r.epoch = int64(o, "epoch", -1);
  r.step = int64(o, "step", -1);
  r.counters = counters(o);
  for (const auto& [name, value] : object_or_empty(o, "windows").items()) {
    r.windows.emplace(name, metrics(value));
  }
  for (const Json& g : array_or_empty(o, "gpu_counters"))
    r.gpu_counters.push_back(gpu_counters(g));
  for (const auto& [name, value] : object_or_empty(o, "top_files").items()) {
    TopFilesView t;
    for (const Json& f : array_or_empty(value, "files"))
      t.files.push_back(file_io(f));
    t.other = file_io(object_or_empty(value, "other"));
    r.top_files.emplace(name, std::move(t));
  }
  for (const auto& [name, value] : object_or_empty(o, "top_kernels").items()) {
    TopKernelsView t;
    for (const Json& k : array_or_empty(value, "kernels"))
      t.kernels.push_back(kernel_time(k));
    t.other = kernel_time(object_or_empty(value, "other"));
    r.top_kernels.emplace(name, std::move(t));
  }
  for (const Json& p : array_or_empty(o, "processes")) {
    ProcessInfo info;
    info.host = text(p, "host");
    info.pid = int64(p, "pid");
    info.ppid = int64(p, "ppid");
    info.role = text(p, "role");
    info.device_source = text(p, "device_source");
    info.agent_version = text(p, "agent_version");
    const Json* finished = field(p, "finished");
    info.finished = finished != nullptr && finished->is_boolean() && finished->get<bool>();
    info.open_regions = uint64(p, "open_regions");
    r.processes.push_back(std::move(info));
  }
  return r;
}

// The job-level device source of a detail body, which does not carry one:
// the ranks' source when they agree, else "mixed" (as in JobSummary).
std::string job_device_source(const std::vector<RankRow>& ranks) {
  if (ranks.empty()) return std::string(catalog::term(catalog::DeviceSignal::kComputeProxy).name);
  for (const RankRow& r : ranks) {
    if (r.device_source != ranks.front().device_source) return "mixed";
  }
  return ranks.front().device_source;
}

JobDetail job_detail(const Json& o) {
  JobDetail d;
  d.head = job_summary(o);
  for (const Json& r : array_or_empty(o, "ranks"))
    d.ranks.push_back(rank_row(r));
  d.head.ranks = d.ranks.size();
  d.head.active_ranks = 0;
  for (const RankRow& r : d.ranks)
    d.head.active_ranks += r.state == "active" ? 1 : 0;
  if (d.head.device_source.empty()) d.head.device_source = job_device_source(d.ranks);
  return d;
}

std::vector<Alert> alerts(const Json& array) {
  std::vector<Alert> out;
  if (!array.is_array()) return out;
  for (const Json& o : array) {
    Alert a;
    a.id = text(o, "id");
    a.name = text(o, "name");
    a.state = text(o, "state");
    a.severity = text(o, "severity");
    a.job = text(o, "job");
    a.rank = optional_int(o, "rank");
    a.metric = text(o, "metric");
    a.window = text(o, "window");
    a.value = number(o, "value");
    a.threshold = number(o, "threshold");
    a.summary = text(object_or_empty(o, "annotations"), "summary");
    out.push_back(std::move(a));
  }
  return out;
}

template <typename T>
ParseResult<T> failure(std::string error) {
  return ParseResult<T>{std::nullopt, std::move(error)};
}

// Parses `json` as a JSON object, or says why it is not one.
std::optional<Json> parse_object(std::string_view json, std::string& error) {
  Json doc = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    error = "response is not valid JSON";
    return std::nullopt;
  }
  if (!doc.is_object()) {
    error = "response is not a JSON object";
    return std::nullopt;
  }
  return doc;
}

bool has_array(const Json& o, const char* key) {
  const Json* f = field(o, key);
  return f != nullptr && f->is_array();
}

}  // namespace

ParseResult<JobsPage> parse_jobs_page(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  if (!doc) return failure<JobsPage>(error);
  if (!has_array(*doc, "jobs")) return failure<JobsPage>("response has no 'jobs' array");
  JobsPage page;
  page.now_ns = int64(*doc, "now_ns");
  page.tick = uint64(*doc, "tick");
  page.windows = strings(*doc, "windows");
  page.verdict_window = text(*doc, "verdict_window");
  for (const Json& j : array_or_empty(*doc, "jobs"))
    page.jobs.push_back(job_summary(j));
  return {std::move(page), {}};
}

ParseResult<JobDetail> parse_job_detail(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  if (!doc) return failure<JobDetail>(error);
  if (!has_array(*doc, "ranks")) return failure<JobDetail>("response has no 'ranks' array");
  return {job_detail(*doc), {}};
}

ParseResult<std::vector<Alert>> parse_alerts(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  if (!doc) return failure<std::vector<Alert>>(error);
  if (!has_array(*doc, "alerts"))
    return failure<std::vector<Alert>>("response has no 'alerts' array");
  return {alerts(*field(*doc, "alerts")), {}};
}

ParseResult<TimelineView> parse_timeline(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  if (!doc) return failure<TimelineView>(error);
  if (!has_array(*doc, "regions")) return failure<TimelineView>("response has no 'regions' array");
  TimelineView t;
  t.job = text(*doc, "job");
  t.rank = static_cast<std::int32_t>(int64(*doc, "rank"));
  t.from_ns = int64(*doc, "from_ns");
  t.to_ns = int64(*doc, "to_ns");
  // A collector's timeline spans at most its history (hours); the client
  // divides the span into columns.
  constexpr std::uint64_t kMaxSpanNs = 7ULL * 24 * 3600 * 1'000'000'000;
  if (t.to_ns < t.from_ns ||
      static_cast<std::uint64_t>(t.to_ns) - static_cast<std::uint64_t>(t.from_ns) > kMaxSpanNs) {
    return failure<TimelineView>("response has no 'from_ns' to 'to_ns' span of at most a week");
  }
  const Json* truncated = field(*doc, "truncated");
  t.truncated = truncated != nullptr && truncated->is_boolean() && truncated->get<bool>();
  for (const Json& o : array_or_empty(*doc, "threads")) {
    TimelineThread thread;
    thread.pid = int64(o, "pid");
    thread.tid = int64(o, "tid");
    thread.role = text(o, "role");
    if (const Json* d = field(o, "device"); d != nullptr && d->is_number_integer())
      thread.device = int64_value(*d);
    thread.label = text(o, "label");
    t.threads.push_back(std::move(thread));
  }
  for (const Json& o : array_or_empty(*doc, "regions")) {
    TimelineRegion r;
    r.start_ns = int64(o, "start_ns");
    r.end_ns = int64(o, "end_ns");
    const Json* open = field(o, "open");
    r.open = open != nullptr && open->is_boolean() && open->get<bool>();
    r.pid = int64(o, "pid");
    r.tid = int64(o, "tid");
    r.cls = text(o, "class");
    r.name = text(o, "name");
    t.regions.push_back(std::move(r));
  }
  return {std::move(t), {}};
}

ParseResult<SeriesView> parse_series(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  if (!doc) return failure<SeriesView>(error);
  if (!has_array(*doc, "t") || !has_array(*doc, "ranks")) {
    return failure<SeriesView>("response has no 't' and 'ranks' arrays");
  }
  SeriesView s;
  s.job = text(*doc, "job");
  s.metric = text(*doc, "metric");
  s.window = text(*doc, "window");
  for (const Json& t : array_or_empty(*doc, "t"))
    s.t.push_back(number_value(t).value_or(0.0));
  for (const Json& r : array_or_empty(*doc, "ranks")) {
    auto& values = s.ranks[static_cast<std::int32_t>(int64(r, "rank"))];
    for (const Json& v : array_or_empty(r, "values")) {
      values.push_back(number_value(v));
    }
    values.resize(s.t.size());
  }
  return {std::move(s), {}};
}

ParseResult<DaemonStatus> parse_status(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  if (!doc) return failure<DaemonStatus>(error);
  if (field(*doc, "version") == nullptr) return failure<DaemonStatus>("response has no 'version'");
  DaemonStatus s;
  s.version = text(*doc, "version");
  s.uptime_seconds = number(*doc, "uptime_seconds").value_or(0);
  s.tick = uint64(*doc, "tick");
  s.tick_ms = int64(*doc, "tick_ms");
  const Json& ingest = object_or_empty(*doc, "ingest");
  s.endpoints = strings(ingest, "endpoints");
  s.frames_received = uint64(ingest, "frames_received");
  s.bytes_received = uint64(ingest, "bytes_received");
  s.events_received = uint64(ingest, "events_received");
  for (const auto& [reason, count] : object_or_empty(ingest, "invalid_frames").items()) {
    s.invalid_frames.emplace_back(reason,
                                  count.is_number_unsigned() ? count.get<std::uint64_t>() : 0);
  }
  s.ingest_lag_seconds = number(ingest, "ingest_lag_seconds").value_or(0);
  s.curve_endpoints = strings(ingest, "curve_endpoints");
  for (const auto& [reason, count] : object_or_empty(ingest, "rejected_connections").items()) {
    s.rejected_connections.emplace_back(
        reason, count.is_number_unsigned() ? count.get<std::uint64_t>() : 0);
  }
  if (const Json* hosts = field(*doc, "hosts"); hosts != nullptr && hosts->is_array()) {
    for (const Json& h : *hosts) {
      if (!h.is_object() || !h.value("clock_warning", false)) continue;
      s.clock_warnings.emplace_back(text(h, "host"), number(h, "clock_offset_seconds").value_or(0));
    }
  }
  if (const Json* j = field(*doc, "journal"); j != nullptr && j->is_object()) {
    DaemonStatus::Journal journal;
    journal.writing = j->value("writing", false);
    journal.error = text(*j, "error");
    journal.records_written = uint64(*j, "records_written");
    journal.records_unwritten = uint64(*j, "records_unwritten");
    journal.bytes_written = uint64(*j, "bytes_written");
    s.journal = journal;
  }
  const Json& engine = object_or_empty(*doc, "engine");
  s.ranks = uint64(engine, "ranks");
  s.sources = uint64(engine, "sources");
  s.late_events = uint64(engine, "late_events");
  s.evicted_ranks = uint64(engine, "evicted_ranks");
  s.rejected_sources = uint64(engine, "rejected_sources");
  s.approx_memory_bytes = uint64(engine, "approx_memory_bytes");
  s.counters = counters(object_or_empty(*doc, "counters"));
  s.windows = strings(*doc, "windows");
  s.verdict_window = text(*doc, "verdict_window");
  return {std::move(s), {}};
}

ParseResult<StreamMessage> parse_stream_message(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  if (!doc) return failure<StreamMessage>(error);
  const std::string type = text(*doc, "type");
  StreamMessage m;
  if (type == "hello") {
    StreamHello h;
    h.version = text(*doc, "version");
    h.tick_ms = int64(*doc, "tick_ms");
    h.windows = strings(*doc, "windows");
    h.verdict_window = text(*doc, "verdict_window");
    m.hello = std::move(h);
  } else if (type == "tick") {
    StreamTick t;
    t.tick = uint64(*doc, "tick");
    t.now_ns = int64(*doc, "now_ns");
    for (const Json& j : array_or_empty(*doc, "jobs"))
      t.jobs.push_back(job_summary(j));
    t.alerts = alerts(array_or_empty(*doc, "alerts"));
    const Json* job = field(*doc, "job");
    if (job != nullptr && job->is_object()) t.job = job_detail(*job);
    m.tick = std::move(t);
  }
  return {std::move(m), {}};
}

std::string api_error_text(std::string_view json) {
  std::string error;
  const auto doc = parse_object(json, error);
  return doc ? text(*doc, "error") : std::string();
}

}  // namespace stallwatch::tui
