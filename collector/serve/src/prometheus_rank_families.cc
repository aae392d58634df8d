// SPDX-License-Identifier: MIT
#include "prometheus_rank_families.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "engine/metric_fields.h"
#include "serve/snapshot_json.h"

namespace stallwatch::collector {
namespace {

constexpr std::array kVerdicts{Verdict::kIdle,           Verdict::kDataStarved,
                               Verdict::kIoBound,        Verdict::kHostBound,
                               Verdict::kWellOverlapped, Verdict::kWaitingForPeers};
constexpr std::array kRankStates{RankState::kActive, RankState::kSilent, RankState::kFinished};

constexpr double seconds(std::int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

// Cumulative seconds over the finalized time, in the order docs/api.md lists them.
struct SecondsCounter {
  std::string_view name;
  std::string_view help;
  std::int64_t FinalizedTotals::*ns;
};
constexpr std::array kSecondsCounters{
    SecondsCounter{"stallwatch_wall_seconds_total",
                   "Wall time of the rank from its start to its finalized horizon (watermark "
                   "minus lateness); the denominator of every share: rate(x_seconds_total) / "
                   "rate(stallwatch_wall_seconds_total).",
                   &FinalizedTotals::wall_ns},
    SecondsCounter{"stallwatch_data_stall_seconds_total",
                   "Time the device idled while the loop waited for data, |FETCH \\ "
                   "DEVICE_BUSY|, over the finalized time.",
                   &FinalizedTotals::data_stall_ns},
    SecondsCounter{"stallwatch_device_busy_seconds_total",
                   "Union of accelerator-busy intervals (DEVICE_BUSY; COMPUTE while the rank has "
                   "no device signal) over the finalized time.",
                   &FinalizedTotals::device_busy_ns},
    SecondsCounter{"stallwatch_fetch_seconds_total",
                   "Union of the training loop's waits for the next batch (FETCH) over the "
                   "finalized time.",
                   &FinalizedTotals::fetch_ns},
    SecondsCounter{"stallwatch_compute_seconds_total",
                   "Union of host-side compute regions (COMPUTE) over the finalized time.",
                   &FinalizedTotals::compute_ns},
    SecondsCounter{"stallwatch_app_io_seconds_total",
                   "Union of application-level I/O and preprocessing regions (APP_IO) over the "
                   "finalized time.",
                   &FinalizedTotals::app_io_ns},
    SecondsCounter{"stallwatch_unoverlapped_app_io_seconds_total",
                   "Application I/O not overlapped by compute, |APP_IO \\ COMPUTE|, over the "
                   "finalized time.",
                   &FinalizedTotals::unoverlapped_app_io_ns},
    SecondsCounter{"stallwatch_io_seconds_total",
                   "Union of system-level I/O regions (POSIX, STDIO) over the finalized time.",
                   &FinalizedTotals::io_ns},
    SecondsCounter{"stallwatch_unoverlapped_io_seconds_total",
                   "System I/O not overlapped by compute, |IO \\ COMPUTE|, over the finalized "
                   "time.",
                   &FinalizedTotals::unoverlapped_io_ns},
    SecondsCounter{"stallwatch_comm_seconds_total",
                   "Union of communication regions (COMM) over the finalized time.",
                   &FinalizedTotals::comm_ns},
};

struct LossCounter {
  std::string_view name;
  std::string_view help;
  std::uint64_t Counters::*member;
};
constexpr std::array kLossCounters{
    LossCounter{"stallwatch_agent_dropped_total", "Events the rank's agents had to drop.",
                &Counters::agent_dropped},
    LossCounter{"stallwatch_lost_batches_total", "Batches lost in transit (sequence gaps).",
                &Counters::lost_batches},
    LossCounter{"stallwatch_late_events_total", "Events that arrived after their time was final.",
                &Counters::late_events},
    LossCounter{"stallwatch_unpaired_events_total",
                "Region ends without a begin, and begins never ended.", &Counters::unpaired_events},
};
constexpr std::array kActivityCounters{
    LossCounter{"stallwatch_events_received_total", "Events received from the rank.",
                &Counters::events_received},
    LossCounter{"stallwatch_batches_received_total", "Batches received from the rank.",
                &Counters::batches_received},
};

// Pre-escaped label sets of one rank.
struct RankRow {
  const RankSnapshot* rank;
  std::string labels;  // job_id, rank
};

std::vector<RankRow> rank_rows(const Snapshot* snap) {
  std::vector<RankRow> out;
  if (snap == nullptr) return out;
  for (const JobSnapshot& job : snap->jobs) {
    for (const RankSnapshot& rank : job.ranks) {
      RankRow r{&rank, {}};
      append_label(r.labels, "job_id", job.job);
      append_label(r.labels, "rank", std::to_string(rank.rank));
      out.push_back(std::move(r));
    }
  }
  return out;
}

// The snapshot's indices of `windows_ns` (those it has), in its order, once each.
std::vector<std::size_t> window_indices(const Snapshot& snap,
                                        const std::vector<std::int64_t>& windows_ns) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < snap.windows_ns.size(); ++i) {
    if (std::find(windows_ns.begin(), windows_ns.end(), snap.windows_ns[i]) != windows_ns.end()) {
      out.push_back(i);
    }
  }
  return out;
}

std::int64_t step_window_ns(const Snapshot* snap, const PrometheusConfig& config) {
  if (config.step_window_ns) return *config.step_window_ns;
  return snap != nullptr ? snap->verdict_window_ns : 0;
}

std::vector<std::string> window_labels(const Snapshot& snap) {
  std::vector<std::string> out;
  for (std::int64_t w : snap.windows_ns)
    out.push_back(label("window", window_name(w)));
  return out;
}

std::string le_label(std::int64_t bound_ns) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, seconds(bound_ns));
  return label("le", std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
}

// The I/O volume of the captured read and write calls (docs/api.md, "I/O
// volume"), only for ranks whose I/O is captured: a rank without capture has
// no count to export and stays at its 20 series.
void write_io_counters(Exposition& e, const std::vector<RankRow>& rows) {
  struct IoCounter {
    const char* name;
    std::int64_t FinalizedTotals::*member;
    const char* help;
  };
  static constexpr IoCounter kIoCounters[] = {
      {"stallwatch_io_read_bytes_total", &FinalizedTotals::read_bytes,
       "Bytes returned by captured read calls (POSIX, STDIO) in the finalized time; only for "
       "ranks with captured I/O."},
      {"stallwatch_io_write_bytes_total", &FinalizedTotals::write_bytes,
       "Bytes written by captured write calls (POSIX, STDIO) in the finalized time; only for "
       "ranks with captured I/O."},
      {"stallwatch_io_read_ops_total", &FinalizedTotals::read_ops,
       "Captured read calls in the finalized time; only for ranks with captured I/O."},
      {"stallwatch_io_write_ops_total", &FinalizedTotals::write_ops,
       "Captured write calls in the finalized time; only for ranks with captured I/O."},
  };
  for (const IoCounter& c : kIoCounters) {
    e.family(c.name, "counter", c.help);
    for (const RankRow& r : rows) {
      if (r.rank->windows.empty() || !r.rank->windows.back().io_captured) continue;
      e.sample(c.name, r.labels, static_cast<double>(r.rank->finalized.*c.member));
    }
  }
}

void write_counters(Exposition& e, const std::vector<RankRow>& rows, bool activity) {
  for (const SecondsCounter& c : kSecondsCounters) {
    e.family(c.name, "counter", c.help);
    for (const RankRow& r : rows)
      e.sample(c.name, r.labels, seconds(r.rank->finalized.*c.ns));
  }
  e.family("stallwatch_steps_total", "counter",
           "Training steps completed (a step mark, or a main-thread fetch when there are none) "
           "in the finalized time.");
  for (const RankRow& r : rows) {
    e.sample("stallwatch_steps_total", r.labels, static_cast<double>(r.rank->finalized.steps));
  }
  e.family("stallwatch_samples_total", "counter",
           "Samples trained on: the batch size in force at each finalized step, summed; 0 while "
           "no batch size is reported.");
  for (const RankRow& r : rows)
    e.sample("stallwatch_samples_total", r.labels, r.rank->finalized.samples);
  write_io_counters(e, rows);

  const auto write = [&](const LossCounter& c) {
    e.family(c.name, "counter", c.help);
    for (const RankRow& r : rows)
      e.sample(c.name, r.labels, static_cast<double>(r.rank->counters.*c.member));
  };
  for (const LossCounter& c : kLossCounters)
    write(c);
  if (activity) {
    for (const LossCounter& c : kActivityCounters)
      write(c);
  }
}

void write_step_histogram(Exposition& e, const Snapshot& snap, const std::vector<RankRow>& rows) {
  const auto& bounds = snap.step_histogram_bounds_ns;
  if (bounds.empty()) return;
  std::vector<std::string> les;
  for (std::int64_t b : bounds)
    les.push_back(le_label(b));
  const std::string inf = label("le", "+Inf");
  e.family("stallwatch_step_duration_seconds", "histogram",
           "Durations of the rank's finalized steps (time since the previous step).");
  for (const RankRow& r : rows) {
    const FinalizedTotals& f = r.rank->finalized;
    for (std::size_t i = 0; i < les.size() && i < f.step_buckets.size(); ++i) {
      e.sample("stallwatch_step_duration_seconds_bucket", r.labels, les[i],
               static_cast<double>(f.step_buckets[i]));
    }
    e.sample("stallwatch_step_duration_seconds_bucket", r.labels, inf,
             static_cast<double>(f.step_durations));
    e.sample("stallwatch_step_duration_seconds_sum", r.labels, seconds(f.step_duration_sum_ns));
    e.sample("stallwatch_step_duration_seconds_count", r.labels,
             static_cast<double>(f.step_durations));
  }
}

// Each metric of the catalog for `windows` (the step quantiles also for the
// step window); a metric with no window is left out.
// Waiting for peers is no catalog metric (it is computed across ranks): its
// own family, over the per-rank windows only. By default the job's
// stallwatch_job_straggler_* series say who holds it back, so a rank stays at
// 20 series.
void write_peer_wait(Exposition& e, const Snapshot* snap, const std::vector<RankRow>& rows,
                     const std::vector<std::string>& labels, const PrometheusConfig& config) {
  e.family("stallwatch_peer_wait_seconds", "gauge",
           "Time blocked in collectives before their latest arrival: waiting for the job's "
           "slower ranks (docs/api.md).");
  if (snap == nullptr) return;
  const auto windows = window_indices(*snap, config.per_rank_windows_ns);
  for (const RankRow& r : rows) {
    for (std::size_t w : windows) {
      if (w < r.rank->windows.size()) {
        e.sample("stallwatch_peer_wait_seconds", r.labels, labels[w],
                 r.rank->windows[w].peer_wait_seconds);
      }
    }
  }
}

void write_window_gauges(Exposition& e, const Snapshot* snap, const std::vector<RankRow>& rows,
                         const PrometheusConfig& config) {
  const std::int64_t step_window = step_window_ns(snap, config);
  std::vector<std::string> labels;
  if (snap != nullptr) labels = window_labels(*snap);
  std::string name;
  for (const MetricField& field : metric_fields()) {
    std::vector<std::int64_t> wanted = config.per_rank_windows_ns;
    if (field.id == catalog::Metric::kStepSecondsP50 ||
        field.id == catalog::Metric::kStepSecondsP95) {
      wanted.push_back(step_window);
    }
    if (wanted.empty()) continue;
    name.assign("stallwatch_").append(field.name());
    e.family(name, "gauge", field.help());
    if (snap == nullptr) continue;
    const auto windows = window_indices(*snap, wanted);
    for (const RankRow& r : rows) {
      for (std::size_t w : windows) {
        if (w < r.rank->windows.size()) {
          e.sample(name, r.labels, labels[w], field.get(r.rank->windows[w]));
        }
      }
    }
  }
  write_peer_wait(e, snap, rows, labels, config);
}

void write_state_and_verdict(Exposition& e, const Snapshot* snap, const std::vector<RankRow>& rows,
                             const PrometheusConfig& config) {
  e.family("stallwatch_rank_info", "gauge",
           "Always 1, one series per rank: its state (active, silent, finished) and where its "
           "device-busy time comes from (device_source).");
  for (const RankRow& r : rows) {
    std::string extra;
    append_label(extra, "state", to_string(r.rank->state));
    append_label(extra, "device_source", to_string(r.rank->device_source));
    e.sample("stallwatch_rank_info", r.labels, extra, 1);
  }

  e.family("stallwatch_verdict", "gauge",
           "Always 1, one series per rank and window: the rank's verdict (idle, data-starved, "
           "io-bound, host-bound, well-overlapped, waiting-for-peers) and the cause of a data "
           "stall (storage, preprocessing, unknown; none for another verdict) in the labels.");
  if (snap == nullptr) return;
  std::vector<std::int64_t> wanted = config.per_rank_windows_ns;
  wanted.push_back(snap->verdict_window_ns);
  const auto windows = window_indices(*snap, wanted);
  const auto labels = window_labels(*snap);
  std::vector<std::string> verdicts;
  for (Verdict v : kVerdicts)
    verdicts.push_back(label("verdict", to_string(v)));
  for (const RankRow& r : rows) {
    for (std::size_t w : windows) {
      if (w >= r.rank->windows.size()) continue;
      const auto v = static_cast<std::size_t>(
          std::find(kVerdicts.begin(), kVerdicts.end(), r.rank->windows[w].verdict) -
          kVerdicts.begin());
      std::string extra = labels[w];
      extra.push_back(',');
      extra.append(verdicts[std::min(v, verdicts.size() - 1)]);
      append_label(extra, "cause", to_string(r.rank->windows[w].cause));
      e.sample("stallwatch_verdict", r.labels, extra, 1);
    }
  }
}

void write_activity_gauges(Exposition& e, const std::vector<RankRow>& rows) {
  e.family("stallwatch_rank_epoch", "gauge", "Latest epoch started by the rank (-1 before any).");
  for (const RankRow& r : rows)
    e.sample("stallwatch_rank_epoch", r.labels, static_cast<double>(r.rank->epoch));
  e.family("stallwatch_rank_step", "gauge", "Latest step reported by the rank (-1 before any).");
  for (const RankRow& r : rows)
    e.sample("stallwatch_rank_step", r.labels, static_cast<double>(r.rank->step));
}

// NVML's latest sample per rank and device (absent until sampled).
void write_gpu_families(Exposition& e, const std::vector<RankRow>& rows) {
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
    for (const RankRow& r : rows) {
      for (const GpuDeviceCounters& d : r.rank->gpu_counters.devices) {
        if (!d.counters[c].sampled()) continue;
        e.sample(name, r.labels, label("device", std::to_string(d.device)), d.counters[c].latest);
      }
    }
  }
}

}  // namespace

void write_rank_families(Exposition& e, const Snapshot* snap, const PrometheusConfig& config) {
  const std::vector<RankRow> rows = rank_rows(snap);
  write_counters(e, rows, config.rank_activity);
  write_state_and_verdict(e, snap, rows, config);
  write_window_gauges(e, snap, rows, config);
  if (config.rank_activity) write_activity_gauges(e, rows);
  if (snap != nullptr) write_step_histogram(e, *snap, rows);
  write_gpu_families(e, rows);
}

void write_job_families(Exposition& e, const Snapshot* snap, const PrometheusConfig& config) {
  std::vector<std::size_t> windows;
  std::vector<std::string> labels;  // per job, per job window: job_id, window
  if (snap != nullptr) {
    windows = window_indices(*snap, config.job_windows_ns.empty()
                                        ? std::vector<std::int64_t>{snap->verdict_window_ns}
                                        : config.job_windows_ns);
    const auto window = window_labels(*snap);
    for (const JobSnapshot& job : snap->jobs) {
      for (std::size_t w : windows) {
        std::string l;
        append_label(l, "job_id", job.job);
        l.push_back(',');
        l.append(window[w]);
        labels.push_back(std::move(l));
      }
    }
  }
  const auto each = [&](auto&& fn) {
    if (snap == nullptr) return;
    std::size_t i = 0;
    for (const JobSnapshot& job : snap->jobs) {
      for (std::size_t w : windows) {
        const std::string& l = labels[i++];
        if (w < job.windows.size()) fn(job.windows[w], l);
      }
    }
  };

  const std::string mean = label("aggregate", "mean");
  const std::string max = label("aggregate", "max");
  std::string name;
  std::string help;
  for (const MetricField& field : metric_fields()) {
    name.assign("stallwatch_job_").append(field.name());
    help.assign(field.help()).append(" Over the job's ranks: aggregate=\"mean\" or \"max\".");
    e.family(name, "gauge", help);
    each([&](const JobWindow& jw, const std::string& l) {
      e.sample(name, l, mean, field.get(jw.mean));
      e.sample(name, l, max, field.get(jw.max));
    });
  }
  e.family("stallwatch_job_verdict", "gauge",
           "Always 1, one series per job and window: the verdict of the job's mean and the cause "
           "of a data stall (none for another verdict) in the labels.");
  each([&](const JobWindow& jw, const std::string& l) {
    std::string extra = label("verdict", to_string(jw.verdict));
    append_label(extra, "cause", to_string(jw.mean.cause));
    e.sample("stallwatch_job_verdict", l, extra, 1);
  });
  e.family("stallwatch_job_straggler_rank", "gauge",
           "The job's slowest rank by median step time in the window (absent with fewer than "
           "two ranks that have steps).");
  each([&](const JobWindow& jw, const std::string& l) {
    if (jw.straggler_rank >= 0) {
      e.sample("stallwatch_job_straggler_rank", l, static_cast<double>(jw.straggler_rank));
    }
  });
  e.family("stallwatch_job_straggler_held_back", "gauge",
           "Always 1, one series per rank holding the job back in the window (its own verdict "
           "and cause in the labels); none in a balanced job.");
  each([&](const JobWindow& jw, const std::string& l) {
    for (std::size_t i = 0; i < jw.held_back.ranks.size(); ++i) {
      std::string extra = label("rank", std::to_string(jw.held_back.ranks[i]));
      extra.push_back(',');
      extra.append(label("verdict", to_string(jw.held_back.verdicts[i])));
      append_label(extra, "cause", to_string(jw.held_back.causes[i]));
      e.sample("stallwatch_job_straggler_held_back", l, extra, 1);
    }
  });
  e.family("stallwatch_job_straggler_cost_ratio", "gauge",
           "Mean share of wall time the job's other ranks wait for the ranks holding it back "
           "(absent when nobody holds it back).");
  each([&](const JobWindow& jw, const std::string& l) {
    if (!jw.held_back.ranks.empty()) {
      e.sample("stallwatch_job_straggler_cost_ratio", l, jw.held_back.cost_ratio);
    }
  });
  e.family("stallwatch_job_ranks", "gauge", "The job's ranks by state (active, silent, finished).");
  if (snap == nullptr) return;
  std::vector<std::string> states;
  for (RankState s : kRankStates)
    states.push_back(label("state", to_string(s)));
  for (const JobSnapshot& job : snap->jobs) {
    const std::string l = label("job_id", job.job);
    for (std::size_t k = 0; k < kRankStates.size(); ++k) {
      const auto n = std::count_if(job.ranks.begin(), job.ranks.end(), [&](const RankSnapshot& r) {
        return r.state == kRankStates[k];
      });
      e.sample("stallwatch_job_ranks", l, states[k], static_cast<double>(n));
    }
  }
}

}  // namespace stallwatch::collector
