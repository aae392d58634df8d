// SPDX-License-Identifier: MIT
#include "engine/engine.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <utility>

#include "catalog/metric_table.h"
#include "class_cache.h"
#include "engine/job_summary.h"
#include "engine/series_metrics.h"
#include "engine/series_summary.h"
#include "host_clocks.h"
#include "job_aggregate.h"
#include "job_peers.h"
#include "rank_tracker.h"

namespace stallwatch::collector {
namespace {

using RankKey = std::pair<std::string, std::int32_t>;
using RankView = std::pair<std::string_view, std::int32_t>;

struct RankKeyLess {
  using is_transparent = void;
  static RankView view(const RankKey& k) { return {k.first, k.second}; }
  static RankView view(const RankView& v) { return v; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return view(a) < view(b);
  }
};

using RankMap = std::map<RankKey, std::unique_ptr<detail::RankTracker>, RankKeyLess>;

}  // namespace

struct Engine::Impl {
  Impl(EngineConfig c, NameTable& n)
      : config(validate(c).empty() ? std::move(c) : EngineConfig{}),
        names(n),
        classes(config.classes, names),
        clocks(config.clock_window_ns, config.clock_warning_ns) {
    special.step_mark = names.intern(config.step_mark);
    special.epoch_start = names.intern(config.epoch_start_mark);
    special.batch_size = names.intern(config.batch_size_counter);
    for (std::size_t k = 0; k < kGpuCounterCount; ++k)
      special.gpu_counters[k] = names.intern(agent_counter_name(static_cast<GpuCounter>(k)));
    special.io_calls = detail::IoCallNames::intern(names);
    special.cuda_runtime = names.intern("cuda_runtime");
    windows_ns = config.windows_ns;
    windows_ns.push_back(0);
    const auto it =
        std::find(config.windows_ns.begin(), config.windows_ns.end(), config.verdict_window_ns);
    verdict_index = config.verdict_window_ns != 0 && it != config.windows_ns.end()
                        ? static_cast<std::size_t>(it - config.windows_ns.begin())
                        : windows_ns.size() - 1;
  }

  detail::RankTracker* find_or_create(const SourceInfo& s, std::int64_t now_ns);
  void forget(RankMap::iterator it) {
    forgotten_late += it->second->late_events();
    if (last == it->second.get()) last = nullptr;
    ranks.erase(it);
  }

  EngineConfig config;
  NameTable& names;
  detail::ClassCache classes;
  detail::HostClocks clocks;
  detail::BatchCoverage batch;       // scratch of RankTracker::ingest
  detail::TimelineBlockPool blocks;  // likewise
  detail::SpecialNames special;
  std::vector<std::int64_t> windows_ns;
  std::size_t verdict_index = 0;
  RankMap ranks;
  detail::RankTracker* last = nullptr;
  EngineStats stats;
  std::uint64_t ticks = 0;
  std::uint64_t forgotten_late = 0;
};

detail::RankTracker* Engine::Impl::find_or_create(const SourceInfo& s, std::int64_t now_ns) {
  if (last != nullptr && last->rank() == s.rank && last->job() == s.job) return last;
  if (auto it = ranks.find(RankView{s.job, s.rank}); it != ranks.end()) {
    last = it->second.get();
    return last;
  }
  if (ranks.size() >= config.max_ranks) {
    auto victim = ranks.end();
    for (auto it = ranks.begin(); it != ranks.end(); ++it) {
      if (it->second->state(now_ns) == RankState::kActive) continue;
      if (victim == ranks.end() || it->second->last_seen_ns() < victim->second->last_seen_ns()) {
        victim = it;
      }
    }
    if (victim == ranks.end()) return nullptr;
    forget(victim);
    ++stats.evicted_ranks;
  }
  auto tracker =
      std::make_unique<detail::RankTracker>(s.job, s.rank, config, classes, batch, blocks, special);
  last = tracker.get();
  ranks.emplace(RankKey{s.job, s.rank}, std::move(tracker));
  return last;
}

Engine::Engine(EngineConfig config, NameTable& names)
    : impl_(std::make_unique<Impl>(std::move(config), names)) {}

Engine::~Engine() = default;

BatchPreparer Engine::make_preparer(std::mutex* names_mutex) const {
  return BatchPreparer(impl_->config.classes, impl_->names, names_mutex);
}

const EngineConfig& Engine::config() const {
  return impl_->config;
}

void Engine::ingest(const DecodedBatch& batch, std::int64_t now_ns, PreparedBatch* prepared) {
  if (prepared != nullptr && !prepared->matches(batch.events.size())) prepared = nullptr;
  impl_->clocks.observe(batch.source.host, batch.sent_at_ns, now_ns);
  detail::RankTracker* r = impl_->find_or_create(batch.source, now_ns);
  if (r == nullptr || !r->ingest(batch, now_ns, prepared)) {
    ++impl_->stats.rejected_sources;
    return;
  }
  impl_->stats.events_processed +=
      prepared != nullptr ? prepared->event_count() : batch.events.size();
}

std::shared_ptr<const Snapshot> Engine::tick(std::int64_t now_ns) {
  Impl& m = *impl_;
  for (auto it = m.ranks.begin(); it != m.ranks.end();) {
    const auto& r = *it->second;
    if (r.state(now_ns) != RankState::kActive &&
        now_ns - r.last_seen_ns() >= m.config.forget_after_ns) {
      const std::string& job = it->first.first;
      const bool last_of_job =
          (it == m.ranks.begin() || std::prev(it)->first.first != job) &&
          (std::next(it) == m.ranks.end() || std::next(it)->first.first != job);
      ++m.stats.forgotten_ranks;
      if (last_of_job) ++m.stats.forgotten_jobs;
      m.forget(it++);
    } else {
      ++it;
    }
  }

  auto snap = std::make_shared<Snapshot>();
  snap->now_ns = now_ns;
  snap->tick = ++m.ticks;
  snap->windows_ns = m.windows_ns;
  snap->verdict_window_ns = m.config.verdict_window_ns;
  snap->verdict_window_index = m.verdict_index;
  snap->step_histogram_bounds_ns = m.config.step_histogram_bounds_ns;
  std::uint64_t sources = 0;
  snap->hosts = m.clocks.tick(now_ns);
  snap->clock_warning_ns = m.config.clock_warning_ns;
  std::uint64_t memory = sizeof(Impl) + m.classes.bytes() + m.batch.bytes() + m.blocks.bytes() +
                         m.clocks.approx_bytes();
  for (auto& [key, tracker] : m.ranks) {
    tracker->settle(now_ns);
    if (snap->jobs.empty() || snap->jobs.back().job != key.first) {
      snap->jobs.emplace_back().job = key.first;
    }
    RankSnapshot& rank =
        snap->jobs.back().ranks.emplace_back(tracker->snapshot(now_ns, m.verdict_index, m.names));
    rank.host = tracker->host();
    rank.clock_offset_ns = m.clocks.offset_ns(rank.host);
    // Its COMM calls, read from its timeline at tick time. A rank that never
    // had COMM time (its totals) has no calls: no scan.
    if (!rank.windows.empty() && rank.windows.back().comm_seconds > 0) {
      rank.comm_calls = tracker->comm_calls();
    }
    sources += tracker->source_count();
    memory += tracker->approx_bytes() + key.first.capacity() + sizeof(key) + 64;
  }
  std::uint64_t late = m.forgotten_late;
  for (JobSnapshot& job : snap->jobs) {
    summarize_job_with_peers(job, m.windows_ns.size(), m.verdict_index, m.config);
    add_counters(snap->counters, job.counters);
    late += job.counters.late_events;
  }
  m.stats.ranks = m.ranks.size();
  m.stats.sources = sources;
  m.stats.late_events = late;
  m.stats.approx_memory_bytes = memory;
  snap->stats = m.stats;
  return snap;
}

std::optional<Timeline> Engine::timeline(std::string_view job, std::int32_t rank,
                                         std::int64_t seconds) const {
  const Impl& m = *impl_;
  auto it = m.ranks.find(RankView{job, rank});
  if (it == m.ranks.end()) return std::nullopt;
  return it->second->timeline(m.names, seconds);
}

std::optional<Series> Engine::series(std::string_view job, std::string_view metric,
                                     std::int64_t window_ns, std::int64_t span_ns) const {
  const Impl& m = *impl_;
  const auto index = detail::series_metric_index(metric);
  if (!index) return std::nullopt;
  if (window_ns != 0 && std::find(m.config.windows_ns.begin(), m.config.windows_ns.end(),
                                  window_ns) == m.config.windows_ns.end()) {
    return std::nullopt;
  }
  auto first = m.ranks.lower_bound(RankView{job, std::numeric_limits<std::int32_t>::min()});
  std::vector<const detail::RankTracker*> ranks;
  for (auto it = first; it != m.ranks.end() && it->first.first == job; ++it) {
    ranks.push_back(it->second.get());
  }
  if (ranks.empty()) return std::nullopt;

  const std::int64_t res = m.config.resolution_ns;
  const std::int64_t max_points = m.config.history_ns / res;
  const std::int64_t points = std::clamp<std::int64_t>(span_ns / res, 1, max_points);
  // Points on the collector's clock: each rank's own times are these plus its
  // host's offset, rounded to the grid so they stay cell boundaries.
  std::vector<std::int64_t> offsets;
  std::int64_t t_end = std::numeric_limits<std::int64_t>::min();
  for (const auto* r : ranks) {
    const std::int64_t offset = m.clocks.offset_ns(r->host());
    const std::int64_t sign = offset < 0 ? -1 : 1;
    offsets.push_back(sign * ((sign * offset + res / 2) / res) * res);
    t_end = std::max(t_end, r->window_end_ns() - offsets.back());
  }

  Series s;
  s.job = std::string(job);
  s.metric = std::string(metric);
  s.window_ns = window_ns;
  s.step_ns = res;
  for (std::int64_t i = 0; i < points; ++i)
    s.t_ns.push_back(t_end - (points - 1 - i) * res);
  std::vector<std::int64_t> rank_t_ns(s.t_ns.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (std::size_t p = 0; p < s.t_ns.size(); ++p)
      rank_t_ns[p] = s.t_ns[p] + offsets[i];
    s.ranks.push_back(ranks[i]->rank());
    ranks[i]->series(*index, window_ns, rank_t_ns, s.values.emplace_back());
  }
  fill_mean_max(s);
  return s;
}

const std::vector<std::string_view>& Engine::series_metric_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const catalog::MetricInfo& m : catalog::kMetrics)
      out.push_back(m.name);
    return out;
  }();
  return names;
}

}  // namespace stallwatch::collector
