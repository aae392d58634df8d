// SPDX-License-Identifier: MIT
#include "fake_backend.h"

#include <cmath>
#include <limits>

#include "stallwatch/device_lane.h"

namespace stallwatch::collector::testing {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kNow = 1'700'000'000 * kS;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

WindowMetrics metrics(std::int64_t window_ns, double stall_ratio, Verdict verdict) {
  WindowMetrics m;
  m.window_ns = window_ns;
  m.end_ns = kNow;
  m.start_ns = kNow - (window_ns == 0 ? 400 * kS : window_ns);
  m.wall_seconds = static_cast<double>(m.end_ns - m.start_ns) / 1e9;
  m.compute_seconds = 0.4 * m.wall_seconds;
  m.fetch_seconds = stall_ratio * m.wall_seconds;
  m.app_io_seconds = m.fetch_seconds;
  m.unoverlapped_app_io_seconds = m.fetch_seconds;
  m.unoverlapped_all_io_seconds = m.fetch_seconds;
  m.data_stall_seconds = m.fetch_seconds;
  m.device_busy_seconds = m.compute_seconds;
  m.overlap_ratio = kNaN;
  m.device_idle_ratio = 0.6;
  m.data_stall_ratio = stall_ratio;
  m.steps = 120;
  m.step_seconds_p50 = 0.25;
  m.step_seconds_p95 = 0.3;
  m.steps_per_second = 4;
  m.samples_per_second = kNaN;
  m.verdict = verdict;
  // Starved ranks read from storage: their loader is mostly inside I/O calls.
  m.loader_io_seconds = 0.9 * m.app_io_seconds;
  m.loader_io_ratio = m.app_io_seconds > 0 ? 0.9 : kNaN;
  m.io_captured = true;
  m.read_bytes_per_second = 256.0 * 1024 * 1024;
  m.write_bytes_per_second = 1024;
  m.read_ops_per_second = 4096;
  m.write_ops_per_second = 2;
  m.cause = verdict == Verdict::kDataStarved ? Cause::kStorage : Cause::kNone;
  return m;
}

// NVML readings of rank 0 of demo-slow: device 0 with every counter, device
// 1 with utilization only (its other readings not supported).
GpuCounters gpu_counters() {
  const auto reading = [](double latest, std::vector<double> means) {
    GpuCounterReading r;
    r.latest = latest;
    r.latest_ns = kNow - kS / 2;
    r.means = std::move(means);
    return r;
  };
  GpuCounters g;
  GpuDeviceCounters d0;
  d0.device = 0;
  d0.counters = {reading(93, {92, 90.5, kNaN, 88}), reading(1410, {1410, 1410, 1410, 1400}),
                 reading(8589934592, {8e9, 8e9, 8e9, 7e9}), reading(250.5, {250, 249, 248, 240})};
  GpuDeviceCounters d1;
  d1.device = 1;
  d1.counters[0] = reading(40, {40, 41, 42, 43});
  d1.counters[0].latest_ns = kNow - 2 * kS;
  for (std::size_t c = 1; c < kGpuCounterCount; ++c)
    d1.counters[c].means.assign(4, kNaN);
  g.devices = {d0, d1};
  g.ignored_samples = 5;
  return g;
}

RankSnapshot rank(std::string job, std::int32_t r, double stall,
                  const std::vector<std::int64_t>& windows) {
  RankSnapshot s;
  s.job = std::move(job);
  s.rank = r;
  s.state = r == 1 ? RankState::kSilent : RankState::kActive;
  s.start_ns = kNow - 400 * kS;
  s.end_ns = kNow;
  s.last_seen_ns = kNow;
  s.watermark_ns = kNow;
  s.epoch = 2;
  s.step = 120 + r;
  for (std::int64_t w : windows) {
    s.windows.push_back(
        metrics(w, stall, stall > 0.15 ? Verdict::kDataStarved : Verdict::kWellOverlapped));
  }
  s.verdict = s.windows[1].verdict;
  s.cause = s.windows[1].cause;
  s.counters.events_received = 1000 + static_cast<std::uint64_t>(r);
  s.counters.batches_received = 10;
  s.counters.agent_dropped = 3;
  s.counters.lost_batches = 1;
  s.counters.late_events = 2;
  ProcessSnapshot p;
  p.host = "n1";
  p.pid = 4242 + r;
  p.ppid = 1;
  p.agent_version = "0.1.0";
  s.processes.push_back(p);
  ProcessSnapshot worker = p;
  worker.pid = 5000 + r;
  worker.ppid = p.pid;
  worker.role = ProcessRole::kWorker;
  s.processes.push_back(worker);
  if (s.job == "demo-slow" && r == 0) {
    s.gpu_counters = gpu_counters();
    // Before and within the timeline's 10 s: only the second is served.
    s.peer_waits = {{kNow - 30 * kS, kNow - 29 * kS, 1}, {kNow - 2 * kS, kNow - kS, 3}};
    // Two files read, one written, two kernels, each with a rest in "other",
    // in every window; the totals since the start hold more files.
    for (std::int64_t w : windows) {
      TopFiles t;
      t.window_ns = w;
      t.files = {{"/data/shard-0.bin", 3'250'000'000, 268'435'456, 0, 4097},
                 {"/ckpt/model.pt", 500'000'000, 0, 1'048'576, 12},
                 {"/data/shard-1.bin", 125'000'000, 1'000, 0, 3}};
      t.other = {"", 2'000'000, 4096, 0, 2};
      if (w == 0) {
        t.files.at(0).io_ns = 32'500'000'000;
        t.other = {"", 7'000'000'000, 1 << 30, 0, 70'000};
      }
      s.top_files.push_back(t);
      if (w == 0) continue;  // top kernels have no totals
      TopKernels k;
      k.window_ns = w;
      k.kernels = {{"ampere_sgemm_128x64_tn", 4'500'000'000, 9000},
                   {"memcpy HtoD", 250'000'000, 50}};
      k.other = {"", 500'000, 100};
      s.top_kernels.push_back(k);
    }
  }
  // Finalized up to 2 s before the watermark; rank 1's wall is irregular.
  FinalizedTotals& f = s.finalized;
  f.horizon_ns = kNow - 2 * kS - (r == 1 ? 876'543'211 : 0);
  f.wall_ns = f.horizon_ns - s.start_ns;
  f.fetch_ns = f.app_io_ns = f.unoverlapped_app_io_ns = f.unoverlapped_all_io_ns = f.data_stall_ns =
      std::llround(stall * 1000) * 398'000'000;
  f.compute_ns = f.device_busy_ns = f.unoverlapped_compute_ns = 159 * kS;
  f.steps = 1590;
  f.samples = 50880;
  f.step_durations = 1589;
  f.step_duration_sum_ns = 397 * kS;
  // Rank 1's I/O is not captured (no --posix): no I/O volume, no I/O counters.
  if (r == 1) {
    for (WindowMetrics& m : s.windows) {
      m.io_captured = false;
      m.read_bytes_per_second = m.write_bytes_per_second = kNaN;
      m.read_ops_per_second = m.write_ops_per_second = kNaN;
    }
  } else {
    f.read_bytes = 100 * 1024 * 1024;
    f.write_bytes = 4096;
    f.read_ops = 1600;
    f.write_ops = 4;
  }
  return s;
}

JobSnapshot job(std::string id, const std::vector<RankSnapshot>& ranks,
                const std::vector<std::int64_t>& windows) {
  JobSnapshot j;
  j.job = std::move(id);
  j.start_ns = kNow - 400 * kS;
  j.last_seen_ns = kNow;
  j.ranks = ranks;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    JobWindow w;
    w.window_ns = windows[i];
    w.mean = ranks.front().windows[i];
    w.max = ranks.back().windows[i];
    w.straggler_rank = ranks.size() >= 2 ? 1 : -1;
    w.verdict = w.mean.verdict;
    j.windows.push_back(w);
  }
  j.verdict = j.windows[1].verdict;
  j.cause = j.windows[1].mean.cause;
  for (const RankSnapshot& r : ranks)
    j.counters.events_received += r.counters.events_received;
  return j;
}

}  // namespace

std::shared_ptr<Snapshot> make_snapshot(std::uint64_t tick, int extra_ranks) {
  auto s = std::make_shared<Snapshot>();
  s->now_ns = kNow;
  s->tick = tick;
  s->windows_ns = {10 * kS, 60 * kS, 300 * kS, 0};
  s->verdict_window_ns = 60 * kS;
  s->verdict_window_index = 1;
  std::vector<RankSnapshot> demo{rank("demo-slow", 0, 0.61, s->windows_ns),
                                 rank("demo-slow", 1, 0.05, s->windows_ns)};
  // Rank 1's host runs 90 s behind the collector, past the warning threshold.
  s->clock_warning_ns = kS;
  demo[1].clock_offset_ns = -90 * kS;
  for (int r = 2; r < 2 + extra_ranks; ++r)
    demo.push_back(rank("demo-slow", r, 0.3, s->windows_ns));
  const std::string odd(kOddJob);
  s->jobs.push_back(job(odd, {rank(odd, 0, 0.2, s->windows_ns)}, s->windows_ns));
  s->jobs.push_back(job("demo-slow", demo, s->windows_ns));
  s->counters.events_received = 3000;
  s->stats.ranks = 3 + static_cast<std::uint64_t>(extra_ranks);
  s->stats.sources = 6;
  return s;
}

std::shared_ptr<PublishedState> make_state(std::uint64_t tick, int extra_ranks) {
  auto state = std::make_shared<PublishedState>();
  state->snapshot = make_snapshot(tick, extra_ranks);
  DaemonStatus& st = state->status;
  st.version = "0.1.0";
  st.uptime_seconds = 12.5;
  st.tick = tick;
  st.tick_ms = 500;
  st.tick_seconds_last = 0.0004;
  st.tick_seconds_max = 0.002;
  st.ingest_endpoints = {"tcp://127.0.0.1:5557", "ipc:///tmp/stallwatch-0/ingest.sock"};
  st.frames_received = 100;
  st.bytes_received = 123456;
  st.events_received = 4000;
  st.invalid_frames = {
      {"too_large", 1}, {"bad_identifier", 0}, {"malformed", 7}, {"version", 0}, {"semantic", 0}};
  st.ingest_lag_seconds = 0.01;
  st.names_interned = 40;
  AlertView a;
  a.id = "DataStarved/demo-slow/0";
  a.name = "DataStarved";
  a.state = "firing";
  a.severity = "warning";
  a.job = "demo-slow";
  a.rank = 0;
  a.scope = "rank";
  a.metric = "data_stall_ratio";
  a.window = "60s";
  a.value = 0.61;
  a.threshold = 0.3;
  a.verdict = "data-starved";
  a.labels = {{"team", "ml \"infra\""}};
  a.annotations = {{"summary", "rank 0 starves"}};
  a.active_since_ns = kNow - 40 * kS;
  a.fired_at_ns = kNow - 10 * kS;
  state->alerts.push_back(a);
  AlertView j = a;
  j.id = "DeviceIdle/demo-slow";
  j.name = "DeviceIdle";
  j.state = "pending";
  j.rank.reset();
  j.scope = "job";
  j.fired_at_ns.reset();
  j.verdict.clear();
  state->alerts.push_back(j);
  return state;
}

void FakeBackend::publish(std::shared_ptr<const PublishedState> state) {
  const std::lock_guard lock(mutex_);
  state_ = std::move(state);
}

std::shared_ptr<const PublishedState> FakeBackend::current() const {
  const std::lock_guard lock(mutex_);
  return state_;
}

std::optional<Timeline> FakeBackend::timeline(std::string_view job, std::int32_t r,
                                              std::int64_t seconds) const {
  const auto state = current();
  {
    const std::lock_guard lock(mutex_);
    timeline_seconds_ = seconds;
  }
  const JobSnapshot* j = state->snapshot->find_job(job);
  if (j == nullptr) return std::nullopt;
  bool found = false;
  for (const RankSnapshot& rs : j->ranks)
    found = found || rs.rank == r;
  if (!found) return std::nullopt;
  Timeline t;
  t.job = std::string(job);
  t.rank = r;
  t.to_ns = kNow;
  t.from_ns = kNow - seconds * kS;
  t.regions.push_back(TimelineRegion{
      kNow - 2 * kS, kNow - kS, false, 4242, 4242,
      static_cast<ClassMask>(class_bit(EventClass::kFetch) | class_bit(EventClass::kAppIo)),
      "dataloader", "fetch.iter", true});
  t.regions.push_back(TimelineRegion{kNow - kS, kNow, true, 5000, 5001, 0, "misc", "open-thing"});
  t.regions.push_back(TimelineRegion{kNow - kS / 2, kNow - kS / 4, false, 4242,
                                     wire::device_lane(0, 7), class_bit(EventClass::kDeviceBusy),
                                     "gpu", "matmul"});
  t.regions.push_back(TimelineRegion{kNow - kS / 2, kNow - kS / 4, false, 4242,
                                     wire::device_lane(3, wire::kDeviceWideStream),
                                     class_bit(EventClass::kDeviceBusy), "gpu", "memset"});
  t.marks.push_back(TimelineMark{kNow - 3 * kS, 4242, 4242, "epoch.start", 2});
  // The engine leaves them to the router (the snapshot's): this one is not
  // served.
  t.peer_waits.push_back(PeerWaitSpan{kNow - 5 * kS, kNow - 4 * kS, 7});
  return t;
}

std::optional<Series> FakeBackend::series(std::string_view job, std::string_view metric,
                                          std::int64_t window_ns, std::int64_t span_ns) const {
  const auto state = current();
  {
    const std::lock_guard lock(mutex_);
    series_window_ns_ = window_ns;
    series_span_ns_ = span_ns;
  }
  if (state->snapshot->find_job(job) == nullptr) return std::nullopt;
  Series s;
  s.job = std::string(job);
  s.metric = std::string(metric);
  s.window_ns = window_ns;
  s.step_ns = kS;
  s.t_ns = {kNow - kS, kNow};
  s.ranks = {0, 1};
  s.values = {{0.61, kNaN}, {0.05, 0.06}};
  s.mean = {0.33, kNaN};
  s.max = {0.61, 0.06};
  return s;
}

std::int64_t FakeBackend::last_timeline_seconds() const {
  const std::lock_guard lock(mutex_);
  return timeline_seconds_;
}

std::int64_t FakeBackend::last_series_window_ns() const {
  const std::lock_guard lock(mutex_);
  return series_window_ns_;
}

std::int64_t FakeBackend::last_series_span_ns() const {
  const std::lock_guard lock(mutex_);
  return series_span_ns_;
}

}  // namespace stallwatch::collector::testing
