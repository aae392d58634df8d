// SPDX-License-Identifier: MIT
// What one tick costs the server for a big job: 256 ranks x (10s, 60s, 300s,
// total) serialized as the job-detail JSON (the WebSocket payload of a
// subscribed tab and GET /api/v1/jobs/{job}), the jobs list, and the
// Prometheus scrape. Side by side, the same job detail built as an
// nlohmann::json DOM and dumped, the approach the streaming writer replaces;
// and the scrape of a 4096-rank job (512 nodes of 8 GPUs) as exported by
// default (counters per rank, aggregates per job) and with every window's
// per-rank gauges and the activity figures configured, the shape of the
// export before the counters. Ends with one JSON line of headline figures
// (medians of the repetitions).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/metric_fields.h"
#include "serve/json_writer.h"
#include "serve/prometheus_text.h"
#include "serve/snapshot_json.h"

namespace stallwatch::collector {
namespace {

constexpr int kRanks = 256;
constexpr int kBigRanks = 4096;
constexpr int kRepetitions = 5;
constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kNow = 1'700'000'000 * kS;

// Irregular values, like real measurements (no short decimal forms).
double value(int rank, int window, int field) {
  return 0.1234567891 * (1 + rank) / (3 + window) + 0.0001 * field;
}

std::shared_ptr<PublishedState> make_state(int ranks) {
  auto snap = std::make_shared<Snapshot>();
  snap->now_ns = kNow;
  snap->tick = 1000;
  snap->windows_ns = {10 * kS, 60 * kS, 300 * kS, 0};
  snap->verdict_window_ns = 60 * kS;
  snap->verdict_window_index = 1;
  JobSnapshot job;
  job.job = "bench-job-2024-05-01";
  for (int r = 0; r < ranks; ++r) {
    RankSnapshot rank;
    rank.job = job.job;
    rank.rank = r;
    rank.start_ns = kNow - 3600 * kS;
    rank.end_ns = rank.last_seen_ns = rank.watermark_ns = kNow - r * 1'234'567;
    rank.epoch = 3;
    rank.step = 12345 + r;
    for (int w = 0; w < 4; ++w) {
      WindowMetrics m;
      m.window_ns = snap->windows_ns[static_cast<std::size_t>(w)];
      m.start_ns = kNow - (w == 3 ? 3600 * kS : m.window_ns);
      m.end_ns = kNow;
      m.wall_seconds = static_cast<double>(m.end_ns - m.start_ns) / 1e9;
      m.compute_seconds = value(r, w, 1) * m.wall_seconds;
      m.app_io_seconds = value(r, w, 2) * m.wall_seconds;
      m.io_seconds = value(r, w, 3);
      m.fetch_seconds = value(r, w, 4);
      m.comm_seconds = value(r, w, 5);
      m.unoverlapped_app_io_seconds = value(r, w, 6);
      m.unoverlapped_io_seconds = value(r, w, 7);
      m.unoverlapped_compute_seconds = value(r, w, 8);
      m.unoverlapped_all_io_seconds = value(r, w, 9);
      m.device_busy_seconds = value(r, w, 10);
      m.data_stall_seconds = value(r, w, 11);
      m.overlap_ratio = value(r, w, 12);
      m.device_idle_ratio = value(r, w, 13);
      m.data_stall_ratio = value(r, w, 14);
      m.steps = static_cast<std::uint64_t>(100 + r);
      m.step_seconds_p50 = value(r, w, 15);
      m.step_seconds_p95 = value(r, w, 16);
      m.steps_per_second = value(r, w, 17);
      m.samples_per_second = value(r, w, 18) * 1000;
      m.verdict = Verdict::kDataStarved;
      rank.windows.push_back(m);
    }
    rank.counters.events_received = 1'000'000 + static_cast<std::uint64_t>(r);
    FinalizedTotals& f = rank.finalized;
    f.horizon_ns = rank.watermark_ns - 2 * kS;
    f.wall_ns = f.horizon_ns - rank.start_ns;
    f.compute_ns = f.wall_ns / 3 + r;
    f.app_io_ns = f.wall_ns / 7 + r;
    f.io_ns = f.wall_ns / 11 + r;
    f.fetch_ns = f.wall_ns / 5 + r;
    f.comm_ns = f.wall_ns / 13 + r;
    f.unoverlapped_app_io_ns = f.app_io_ns / 2;
    f.unoverlapped_io_ns = f.io_ns / 2;
    f.device_busy_ns = f.wall_ns / 2 + r;
    f.data_stall_ns = f.fetch_ns / 2;
    f.steps = 12345 + static_cast<std::uint64_t>(r);
    f.samples = 32.0 * static_cast<double>(f.steps);
    ProcessSnapshot p;
    p.host = "node-" + std::to_string(r / 8);
    p.pid = 10000 + r;
    p.ppid = 1;
    p.agent_version = "0.1.0";
    rank.processes.push_back(p);
    p.pid += 100000;
    p.role = ProcessRole::kWorker;
    rank.processes.push_back(p);
    job.ranks.push_back(std::move(rank));
  }
  for (std::size_t w = 0; w < 4; ++w) {
    JobWindow jw;
    jw.window_ns = snap->windows_ns[w];
    jw.mean = job.ranks[0].windows[w];
    jw.max = job.ranks[1].windows[w];
    jw.straggler_rank = 7;
    job.windows.push_back(jw);
  }
  snap->jobs.push_back(std::move(job));
  auto state = std::make_shared<PublishedState>();
  state->snapshot = std::move(snap);
  state->status.version = "0.1.0";
  return state;
}

const PublishedState& state() {
  static const auto kState = make_state(kRanks);
  return *kState;
}

const PublishedState& big_state() {
  static const auto kState = make_state(kBigRanks);
  return *kState;
}

void set_bytes(benchmark::State& s, std::size_t bytes) {
  s.counters["bytes"] = static_cast<double>(bytes);
}

void bm_job_detail(benchmark::State& s) {
  const Snapshot& snap = *state().snapshot;
  std::string out;
  for (auto _ : s) {
    out.clear();
    JsonWriter w(out);
    SnapshotJson(snap).write_job_detail(w, snap.jobs.front());
    benchmark::DoNotOptimize(out.data());
  }
  set_bytes(s, out.size());
}

void bm_jobs_list(benchmark::State& s) {
  const Snapshot& snap = *state().snapshot;
  std::string out;
  for (auto _ : s) {
    out.clear();
    JsonWriter w(out);
    SnapshotJson(snap).write_jobs(w);
    benchmark::DoNotOptimize(out.data());
  }
  set_bytes(s, out.size());
}

void bm_prometheus(benchmark::State& s) {
  std::string out;
  for (auto _ : s) {
    out = prometheus_text(state(), ServeStats{});
    benchmark::DoNotOptimize(out.data());
  }
  set_bytes(s, out.size());
}

std::size_t series(const std::string& text) {
  std::size_t n = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    n += text[at] != '#';
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return n;
}

void prometheus_4096(benchmark::State& s, const PrometheusConfig& config) {
  std::string out;
  for (auto _ : s) {
    out = prometheus_text(big_state(), ServeStats{}, config);
    benchmark::DoNotOptimize(out.data());
  }
  set_bytes(s, out.size());
  s.counters["series"] = static_cast<double>(series(out));
}

void bm_prometheus_4096_default(benchmark::State& s) {
  prometheus_4096(s, PrometheusConfig{});
}

// Every window's gauges per rank and the activity figures: the old export.
void bm_prometheus_4096_every_window(benchmark::State& s) {
  PrometheusConfig config;
  config.per_rank_windows_ns = {10 * kS, 60 * kS, 300 * kS, 0};
  config.rank_activity = true;
  prometheus_4096(s, config);
}

nlohmann::json dom_metrics(const WindowMetrics& m) {
  nlohmann::json j;
  j["window"] = window_name(m.window_ns);
  j["start_ns"] = m.start_ns;
  j["end_ns"] = m.end_ns;
  for (const MetricField& f : metric_fields())
    j[std::string(f.name())] = f.get(m);
  j["verdict"] = to_string(m.verdict);
  return j;
}

nlohmann::json dom_counters(const Counters& c) {
  return {{"events_received", c.events_received}, {"batches_received", c.batches_received},
          {"agent_dropped", c.agent_dropped},     {"lost_batches", c.lost_batches},
          {"late_events", c.late_events},         {"unpaired_events", c.unpaired_events}};
}

// The same document as SnapshotJson::write_job_detail, built as a DOM.
void bm_job_detail_nlohmann(benchmark::State& s) {
  const Snapshot& snap = *state().snapshot;
  const JobSnapshot& job = snap.jobs.front();
  std::string out;
  for (auto _ : s) {
    nlohmann::json doc;
    doc["now_ns"] = snap.now_ns;
    doc["tick"] = snap.tick;
    doc["windows"] = {"10s", "60s", "300s", "total"};
    doc["verdict_window"] = "60s";
    doc["job"] = job.job;
    doc["state"] = to_string(job.state);
    doc["start_ns"] = job.start_ns;
    doc["last_seen_ns"] = job.last_seen_ns;
    doc["verdict"] = to_string(job.verdict);
    nlohmann::json summary;
    for (const JobWindow& jw : job.windows) {
      summary[window_name(jw.window_ns)] = {{"mean", dom_metrics(jw.mean)},
                                            {"max", dom_metrics(jw.max)},
                                            {"straggler_rank", jw.straggler_rank},
                                            {"verdict", to_string(jw.verdict)}};
    }
    doc["summary"] = std::move(summary);
    doc["counters"] = dom_counters(job.counters);
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankSnapshot& r : job.ranks) {
      nlohmann::json row;
      row["rank"] = r.rank;
      row["state"] = to_string(r.state);
      row["verdict"] = to_string(r.verdict);
      row["device_source"] = to_string(r.device_source);
      row["start_ns"] = r.start_ns;
      row["end_ns"] = r.end_ns;
      row["last_seen_ns"] = r.last_seen_ns;
      row["watermark_ns"] = r.watermark_ns;
      row["epoch"] = r.epoch;
      row["step"] = r.step;
      row["events_received"] = r.counters.events_received;
      row["batches_received"] = r.counters.batches_received;
      row["agent_dropped"] = r.counters.agent_dropped;
      row["lost_batches"] = r.counters.lost_batches;
      row["late_events"] = r.counters.late_events;
      row["unpaired_events"] = r.counters.unpaired_events;
      nlohmann::json windows;
      for (const WindowMetrics& m : r.windows)
        windows[window_name(m.window_ns)] = dom_metrics(m);
      row["windows"] = std::move(windows);
      nlohmann::json procs = nlohmann::json::array();
      for (const ProcessSnapshot& p : r.processes) {
        procs.push_back({{"host", p.host},
                         {"pid", p.pid},
                         {"ppid", p.ppid},
                         {"role", p.role == ProcessRole::kWorker ? "worker" : "main"},
                         {"device_source", "none"},
                         {"agent_version", p.agent_version},
                         {"start_ns", p.start_ns},
                         {"last_seen_ns", p.last_seen_ns},
                         {"watermark_ns", p.watermark_ns},
                         {"finished", p.finished},
                         {"open_regions", p.open_regions},
                         {"counters", dom_counters(p.counters)}});
      }
      row["processes"] = std::move(procs);
      ranks.push_back(std::move(row));
    }
    doc["ranks"] = std::move(ranks);
    out = doc.dump();
    benchmark::DoNotOptimize(out.data());
  }
  set_bytes(s, out.size());
}

class MedianCollector : public benchmark::ConsoleReporter {
 public:
  MedianCollector() : ConsoleReporter(OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median") {
        medians[run.run_name.function_name]["cpu_ms"] = run.GetAdjustedCPUTime();
        for (const auto& [name, counter] : run.counters)
          medians[run.run_name.function_name][name] = counter.value;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, std::map<std::string, double>> medians;
};

}  // namespace
}  // namespace stallwatch::collector

int main(int argc, char** argv) {
  using namespace stallwatch::collector;
  benchmark::Initialize(&argc, argv);
  for (auto [name, fn] :
       {std::pair{"job_detail_256_ranks", &bm_job_detail}, std::pair{"jobs_list", &bm_jobs_list},
        std::pair{"prometheus_256_ranks", &bm_prometheus},
        std::pair{"prometheus_4096_ranks_default", &bm_prometheus_4096_default},
        std::pair{"prometheus_4096_ranks_every_window", &bm_prometheus_4096_every_window},
        std::pair{"job_detail_256_ranks_nlohmann_dom", &bm_job_detail_nlohmann}}) {
    benchmark::RegisterBenchmark(name, fn)
        ->Repetitions(kRepetitions)
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  }
  MedianCollector reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  auto figure = [&](const char* bench, const char* counter) {
    const auto it = reporter.medians.find(bench);
    if (it == reporter.medians.end()) return 0.0;
    const auto v = it->second.find(counter);
    return v == it->second.end() ? 0.0 : v->second;
  };
  const double detail = figure("job_detail_256_ranks", "cpu_ms");
  const double dom = figure("job_detail_256_ranks_nlohmann_dom", "cpu_ms");
  std::printf(
      "{\"bench\":\"serve_json\",\"ranks\":%d,\"job_detail_ms\":%.3f,\"job_detail_bytes\":%.0f,"
      "\"jobs_list_ms\":%.4f,\"prometheus_ms\":%.3f,\"prometheus_bytes\":%.0f,"
      "\"nlohmann_dom_job_detail_ms\":%.3f,\"dom_over_streaming_ratio\":%.2f,"
      "\"prometheus_4096_default_ms\":%.2f,\"prometheus_4096_default_bytes\":%.0f,"
      "\"prometheus_4096_default_series\":%.0f,\"prometheus_4096_every_window_ms\":%.2f,"
      "\"prometheus_4096_every_window_bytes\":%.0f,\"prometheus_4096_every_window_series\":%.0f}\n",
      kRanks, detail, figure("job_detail_256_ranks", "bytes"), figure("jobs_list", "cpu_ms"),
      figure("prometheus_256_ranks", "cpu_ms"), figure("prometheus_256_ranks", "bytes"), dom,
      detail > 0 ? dom / detail : 0.0, figure("prometheus_4096_ranks_default", "cpu_ms"),
      figure("prometheus_4096_ranks_default", "bytes"),
      figure("prometheus_4096_ranks_default", "series"),
      figure("prometheus_4096_ranks_every_window", "cpu_ms"),
      figure("prometheus_4096_ranks_every_window", "bytes"),
      figure("prometheus_4096_ranks_every_window", "series"));
  return 0;
}
