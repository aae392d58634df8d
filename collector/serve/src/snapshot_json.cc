// SPDX-License-Identifier: MIT
#include "serve/snapshot_json.h"

#include <algorithm>

#include "engine/metric_fields.h"
#include "gpu_counters_json.h"
#include "top_files_json.h"
#include "top_kernels_json.h"

namespace stallwatch::collector {
namespace {

std::string_view role_name(ProcessRole role) {
  return role == ProcessRole::kWorker ? "worker" : "main";
}

std::string_view device_source_name(DeviceSource source) {
  switch (source) {
    case DeviceSource::kCupti:
      return "cupti";
    case DeviceSource::kCudaEvents:
      return "cuda-events";
    case DeviceSource::kNvml:
      return "nvml";
    case DeviceSource::kNone:
      break;
  }
  return "none";
}

std::string_view job_device_source(const JobSnapshot& job) {
  if (job.ranks.empty()) return to_string(DeviceSignal::kComputeProxy);
  const DeviceSignal first = job.ranks.front().device_source;
  for (const RankSnapshot& r : job.ranks) {
    if (r.device_source != first) return "mixed";
  }
  return to_string(first);
}

}  // namespace

std::string window_name(std::int64_t window_ns) {
  constexpr std::int64_t kNsPerMs = 1'000'000;
  constexpr std::int64_t kNsPerS = 1'000'000'000;
  if (window_ns == 0) return "total";
  if (window_ns % kNsPerS == 0) return std::to_string(window_ns / kNsPerS) + "s";
  if (window_ns % kNsPerMs == 0) return std::to_string(window_ns / kNsPerMs) + "ms";
  return std::to_string(window_ns) + "ns";
}

SnapshotJson::SnapshotJson(const Snapshot& snapshot) : snapshot_(snapshot) {
  names_.reserve(snapshot.windows_ns.size() + 1);
  for (std::int64_t ns : snapshot.windows_ns)
    names_.emplace_back(ns, window_name(ns));
  if (names_.empty()) names_.emplace_back(0, window_name(0));
  verdict_index_ = std::min(snapshot.verdict_window_index, names_.size() - 1);
}

std::string_view SnapshotJson::name_of(std::int64_t window_ns) const {
  for (const auto& [ns, name] : names_) {
    if (ns == window_ns) return name;
  }
  return {};
}

template <class Entries>
std::vector<std::string_view> SnapshotJson::window_names(const Entries& entries,
                                                         std::vector<std::string>& fallback) const {
  fallback.reserve(entries.size());  // no reallocation: the names point into it
  std::vector<std::string_view> names;
  for (const auto& e : entries) {
    const std::string_view name = name_of(e.window_ns);
    names.push_back(name.empty() ? fallback.emplace_back(window_name(e.window_ns)) : name);
  }
  return names;
}

void SnapshotJson::write_window_names(JsonWriter& w) const {
  w.begin_array();
  for (const auto& entry : names_)
    w.string(entry.second);
  w.end_array();
}

void SnapshotJson::write_header_fields(JsonWriter& w) const {
  w.key("now_ns").integer(snapshot_.now_ns);
  w.key("tick").integer(snapshot_.tick);
  w.key("windows");
  write_window_names(w);
  w.key("verdict_window").string(verdict_window());
}

void SnapshotJson::write_jobs(JsonWriter& w) const {
  w.begin_object();
  write_header_fields(w);
  w.key("jobs").begin_array();
  for (const JobSnapshot& job : snapshot_.jobs)
    write_job_summary(w, job);
  w.end_array();
  w.end_object();
}

void SnapshotJson::write_metrics(JsonWriter& w, const WindowMetrics& m) const {
  w.begin_object();
  const std::string_view name = name_of(m.window_ns);
  if (name.empty()) {
    w.key("window").string(window_name(m.window_ns));
  } else {
    w.key("window").string(name);
  }
  w.key("start_ns").integer(m.start_ns);
  w.key("end_ns").integer(m.end_ns);
  for (const MetricField& field : metric_fields()) {
    w.key(field.name());
    if (field.is_count()) {
      w.integer(static_cast<std::uint64_t>(field.get(m)));
    } else {
      w.number(field.get(m));
    }
  }
  w.key("verdict").string(to_string(m.verdict));
  w.key("peer_wait_seconds").number(m.peer_wait_seconds);
  w.key("io_captured").boolean(m.io_captured);
  w.key("launches_captured").boolean(m.launches_captured);
  write_cause(w, m.cause);
  w.end_object();
}

void SnapshotJson::write_cause(JsonWriter& w, Cause c) {
  w.key("cause");
  if (c == Cause::kNone) {
    w.null();
  } else {
    w.string(to_string(c));
  }
}

void SnapshotJson::write_counters(JsonWriter& w, const Counters& c) {
  w.begin_object();
  w.key("events_received").integer(c.events_received);
  w.key("batches_received").integer(c.batches_received);
  w.key("agent_dropped").integer(c.agent_dropped);
  w.key("lost_batches").integer(c.lost_batches);
  w.key("late_events").integer(c.late_events);
  w.key("unpaired_events").integer(c.unpaired_events);
  w.end_object();
}

void SnapshotJson::write_aggregates(JsonWriter& w, const JobSnapshot& job) const {
  w.key("summary").begin_object();
  for (const JobWindow& jw : job.windows) {
    const std::string_view name = name_of(jw.window_ns);
    w.key(name.empty() ? std::string_view(window_name(jw.window_ns)) : name);
    w.begin_object();
    w.key("mean");
    write_metrics(w, jw.mean);
    w.key("max");
    write_metrics(w, jw.max);
    w.key("straggler_rank");
    if (jw.straggler_rank >= 0) {
      w.integer(jw.straggler_rank);
    } else {
      w.null();
    }
    w.key("verdict").string(to_string(jw.verdict));
    write_held_back(w, jw.held_back);
    write_cause(w, jw.mean.cause);
    w.end_object();
  }
  w.end_object();
}

// docs/api.md, "held_back": null when nobody holds the job back.
void SnapshotJson::write_held_back(JsonWriter& w, const JobWindow::HeldBack& h) {
  w.key("held_back");
  if (h.ranks.empty()) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("ranks").begin_array();
  for (std::size_t i = 0; i < h.ranks.size(); ++i) {
    w.begin_object();
    w.key("rank").integer(h.ranks[i]);
    w.key("verdict").string(to_string(h.verdicts[i]));
    write_cause(w, h.causes[i]);
    w.end_object();
  }
  w.end_array();
  w.key("cost_ratio").number(h.cost_ratio);
  w.key("other_ranks").integer(h.other_ranks);
  w.end_object();
}

void SnapshotJson::write_job_summary(JsonWriter& w, const JobSnapshot& job) const {
  std::size_t active = 0;
  for (const RankSnapshot& r : job.ranks)
    active += r.state == RankState::kActive ? 1 : 0;
  w.begin_object();
  w.key("job").string(job.job);
  w.key("state").string(to_string(job.state));
  w.key("ranks").integer(job.ranks.size());
  w.key("active_ranks").integer(active);
  w.key("start_ns").integer(job.start_ns);
  w.key("last_seen_ns").integer(job.last_seen_ns);
  w.key("verdict").string(to_string(job.verdict));
  write_cause(w, job.cause);
  w.key("device_source").string(job_device_source(job));
  write_aggregates(w, job);
  w.key("counters");
  write_counters(w, job.counters);
  w.end_object();
}

void SnapshotJson::write_job_detail(JsonWriter& w, const JobSnapshot& job) const {
  w.begin_object();
  write_header_fields(w);
  w.key("job").string(job.job);
  w.key("state").string(to_string(job.state));
  w.key("start_ns").integer(job.start_ns);
  w.key("last_seen_ns").integer(job.last_seen_ns);
  w.key("verdict").string(to_string(job.verdict));
  write_cause(w, job.cause);
  w.key("device_source").string(job_device_source(job));
  write_aggregates(w, job);
  w.key("counters");
  write_counters(w, job.counters);
  w.key("ranks").begin_array();
  for (const RankSnapshot& rank : job.ranks)
    write_rank_row(w, rank);
  w.end_array();
  w.end_object();
}

void SnapshotJson::write_rank_row(JsonWriter& w, const RankSnapshot& r) const {
  w.begin_object();
  w.key("rank").integer(r.rank);
  w.key("host").string(r.host);
  w.key("clock_offset_seconds").number(static_cast<double>(r.clock_offset_ns) / 1e9);
  const std::int64_t off = r.clock_offset_ns < 0 ? -r.clock_offset_ns : r.clock_offset_ns;
  w.key("clock_warning")
      .boolean(snapshot_.clock_warning_ns > 0 && off >= snapshot_.clock_warning_ns);
  w.key("state").string(to_string(r.state));
  w.key("verdict").string(to_string(r.verdict));
  write_cause(w, r.cause);
  w.key("device_source").string(to_string(r.device_source));
  w.key("start_ns").integer(r.start_ns);
  w.key("end_ns").integer(r.end_ns);
  w.key("last_seen_ns").integer(r.last_seen_ns);
  w.key("watermark_ns").integer(r.watermark_ns);
  w.key("epoch").integer(r.epoch);
  w.key("step").integer(r.step);
  w.key("events_received").integer(r.counters.events_received);
  w.key("batches_received").integer(r.counters.batches_received);
  w.key("agent_dropped").integer(r.counters.agent_dropped);
  w.key("lost_batches").integer(r.counters.lost_batches);
  w.key("late_events").integer(r.counters.late_events);
  w.key("unpaired_events").integer(r.counters.unpaired_events);
  w.key("windows").begin_object();
  for (const WindowMetrics& m : r.windows) {
    const std::string_view name = name_of(m.window_ns);
    w.key(name.empty() ? std::string_view(window_name(m.window_ns)) : name);
    write_metrics(w, m);
  }
  w.end_object();
  w.key("gpu_counters");
  if (r.gpu_counters.devices.empty()) {
    w.begin_array().end_array();
  } else {
    std::vector<std::string> fallback;  // names of windows the snapshot does not list
    write_gpu_counters(w, r, window_names(r.windows, fallback));
  }
  w.key("gpu_counters_ignored").integer(r.gpu_counters.ignored_samples);
  {
    std::vector<std::string> fallback;
    w.key("top_files");
    write_top_files(w, r, window_names(r.top_files, fallback));
  }
  {
    std::vector<std::string> fallback;
    w.key("top_kernels");
    write_top_kernels(w, r, window_names(r.top_kernels, fallback));
  }
  w.key("processes").begin_array();
  for (const ProcessSnapshot& p : r.processes) {
    w.begin_object();
    w.key("host").string(p.host);
    w.key("pid").integer(p.pid);
    w.key("ppid").integer(p.ppid);
    w.key("role").string(role_name(p.role));
    w.key("device_source").string(device_source_name(p.device_source));
    w.key("agent_version").string(p.agent_version);
    w.key("start_ns").integer(p.start_ns);
    w.key("last_seen_ns").integer(p.last_seen_ns);
    w.key("watermark_ns").integer(p.watermark_ns);
    w.key("finished").boolean(p.finished);
    w.key("open_regions").integer(p.open_regions);
    w.key("counters");
    write_counters(w, p.counters);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace stallwatch::collector
