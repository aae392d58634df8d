// SPDX-License-Identifier: MIT
#include "traces/trace_plan.h"

#include <algorithm>
#include <functional>
#include <map>

#include "kineto_reader.h"

namespace stallwatch::collector {

namespace {

constexpr int kPeekEvents = 256;

std::string peek(const std::string& path, TraceSource& source) {
  std::string error;
  auto reader = open_trace_reader(path, error);
  if (!reader) return error;
  const TraceFileInfo opened = reader->info();
  TraceEvent event;
  for (int i = 0; i < kPeekEvents && reader->next(event); ++i) {
    if (event.kind == TraceEventKind::kComplete) {
      source.first_ts_ns = std::min(source.first_ts_ns, event.ts_ns);
    }
  }
  if (!reader->error().empty() && reader->stats().records == 0) return reader->error();
  if (reader->info().format == TraceFormat::kDftracer) {
    source.info = reader->info();
    return {};
  }
  // A Kineto file's rank is in its distributedInfo member. The reader has
  // read the members before its first events (where the profiler writes
  // it); only a file without it there is scanned to its end.
  TraceFileInfo info = opened;
  if (reader->info().rank >= 0) {
    info.rank = reader->info().rank;
    info.world_size = reader->info().world_size;
    info.base_time_ns = reader->info().base_time_ns;
    info.host = reader->info().host;
  } else if (auto err = KinetoReader::scan_metadata(path, info); !err.empty()) {
    return err;
  }
  if (info.rank < 0) info.rank = rank_from_file_name(path);
  source.info = info;
  source.info.pid = reader->info().pid;
  if (source.info.host.empty()) source.info.host = reader->info().host;
  return {};
}

}  // namespace

std::string plan_traces(const std::vector<std::string>& paths, TracePlan& plan) {
  plan = TracePlan{};
  plan.sources.resize(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (auto err = peek(paths[i], plan.sources[i]); !err.empty()) return err;
    plan.sources[i].info.path = paths[i];
    plan.first_ts_ns = std::min(plan.first_ts_ns, plan.sources[i].first_ts_ns);
  }
  // Resolve each file to the file of its rank's training process. A process
  // is known by the file that has its `start` record, else by its first file.
  std::map<std::int64_t, std::size_t> file_of_pid;
  for (int with_start = 1; with_start >= 0; --with_start) {
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const auto& info = plan.sources[i].info;
      if (info.format == TraceFormat::kDftracer && info.pid >= 0 &&
          (info.ppid >= 0) == (with_start == 1)) {
        file_of_pid.emplace(info.pid, i);
      }
    }
  }
  std::vector<std::size_t> root(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    std::size_t at = i;
    for (std::size_t hops = 0; hops < paths.size(); ++hops) {
      const auto& info = plan.sources[at].info;
      if (info.format != TraceFormat::kDftracer || info.rank >= 0) break;
      // Without a `start` record (no parent pid), a file written under
      // another file's pid is that process's forked child.
      const std::int64_t parent_pid = info.ppid >= 0 ? info.ppid : info.pid;
      auto parent = file_of_pid.find(parent_pid);
      if (parent_pid < 0 || parent == file_of_pid.end() || parent->second == at) break;
      at = parent->second;
    }
    root[i] = at;
  }
  // Ranks: explicit ones first, then the remaining roots in path order.
  std::map<std::pair<TraceFormat, std::int64_t>, std::size_t> group_of;
  std::vector<std::size_t> order(paths.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return paths[a] < paths[b]; });
  std::map<TraceFormat, std::int64_t> next_rank;
  for (const auto& source : plan.sources) {
    auto& n = next_rank[source.info.format];
    n = std::max(n, source.info.rank + 1);
  }
  std::vector<std::int64_t> rank_of_root(paths.size(), -1);
  std::map<std::int64_t, std::size_t> kineto_owner;  // rank -> file
  for (std::size_t i : order) {
    const std::size_t r = root[i];
    const auto& info = plan.sources[r].info;
    if (rank_of_root[r] >= 0) continue;
    rank_of_root[r] = info.rank >= 0 ? info.rank : next_rank[info.format]++;
    if (info.format != TraceFormat::kKineto) continue;
    auto [owner, fresh] = kineto_owner.emplace(rank_of_root[r], r);
    if (!fresh) {
      const std::int64_t taken = rank_of_root[r];
      rank_of_root[r] = next_rank[info.format]++;
      kineto_owner.emplace(rank_of_root[r], r);
      plan.notes.push_back(paths[r] + ": rank " + std::to_string(taken) + " is already " +
                           paths[owner->second] + "; shown as rank " +
                           std::to_string(rank_of_root[r]));
    }
  }
  for (std::size_t i : order) {
    const std::size_t r = root[i];
    const auto& root_info = plan.sources[r].info;
    const auto key = std::make_pair(root_info.format, rank_of_root[r]);
    auto [it, inserted] = group_of.emplace(key, plan.ranks.size());
    if (inserted) {
      RankGroup group;
      group.format = root_info.format;
      group.rank = key.second;
      group.main_pid = root_info.pid;
      group.host = root_info.host;
      plan.ranks.push_back(group);
    }
    RankGroup& group = plan.ranks[it->second];
    group.sources.push_back(i);
    if (i == r && plan.sources[i].info.ppid >= 0 &&
        file_of_pid.count(plan.sources[i].info.ppid) == 0) {
      group.main_pid = plan.sources[i].info.pid;
    }
    if (group.host.empty()) group.host = plan.sources[i].info.host;
  }
  std::sort(plan.ranks.begin(), plan.ranks.end(), [](const RankGroup& a, const RankGroup& b) {
    return std::make_pair(a.format, a.rank) < std::make_pair(b.format, b.rank);
  });
  return {};
}

struct RankStream::Cursor {
  std::unique_ptr<TraceReader> reader;
  TraceEvent event;
  const TraceFileInfo* info = nullptr;
};

RankStream::RankStream(const TracePlan& plan, const RankGroup& group)
    : plan_(plan), group_(group) {}
RankStream::~RankStream() = default;

std::string RankStream::open() {
  for (std::size_t index : group_.sources) {
    const std::string& path = plan_.sources[index].info.path;
    auto cursor = std::make_unique<Cursor>();
    std::string error;
    cursor->reader = open_trace_reader(path, error);
    if (!cursor->reader) return error;
    cursor->info = &plan_.sources[index].info;
    cursors_.push_back(std::move(cursor));
  }
  for (std::size_t i = 0; i < cursors_.size(); ++i) {
    if (!advance(i) && !error_.empty()) return error_;
  }
  return {};
}

bool RankStream::advance(std::size_t c) {
  Cursor& cursor = *cursors_[c];
  if (!cursor.reader->next(cursor.event)) {
    if (!cursor.reader->error().empty() && error_.empty()) error_ = cursor.reader->error();
    return false;
  }
  heap_.emplace_back(cursor.event.end_ns(), c);
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  return true;
}

bool RankStream::next(const TraceEvent*& event, const TraceFileInfo*& file) {
  if (cursors_.size() == 1) {
    // One file: nothing to merge, the heap only marks the first event.
    Cursor& cursor = *cursors_.front();
    if (last_ == 0) {
      last_ = static_cast<std::size_t>(-1);
      if (!cursor.reader->next(cursor.event)) {
        if (!cursor.reader->error().empty() && error_.empty()) error_ = cursor.reader->error();
        return false;
      }
    } else if (heap_.empty()) {
      return false;
    }
    heap_.clear();
    last_ = 0;
    event = &cursor.event;
    file = cursor.info;
    return true;
  }
  if (last_ != static_cast<std::size_t>(-1)) {
    advance(last_);
    last_ = static_cast<std::size_t>(-1);
  }
  if (!error_.empty() || heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
  last_ = heap_.back().second;
  heap_.pop_back();
  event = &cursors_[last_]->event;
  file = cursors_[last_]->info;
  return true;
}

std::vector<ReadStats> RankStream::stats() const {
  std::vector<ReadStats> out;
  for (const auto& cursor : cursors_)
    out.push_back(cursor->reader->stats());
  return out;
}

bool RankStream::fractional_ts() const {
  for (const auto& cursor : cursors_) {
    if (cursor->reader->info().fractional_ts) return true;
  }
  return false;
}

}  // namespace stallwatch::collector
