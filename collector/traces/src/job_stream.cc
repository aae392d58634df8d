// SPDX-License-Identifier: MIT
#include "traces/job_stream.h"

#include <algorithm>
#include <functional>

namespace stallwatch::collector {

JobStream::JobStream(const TracePlan& plan) : plan_(plan) {}
JobStream::~JobStream() = default;

std::string JobStream::open() {
  for (const RankGroup& group : plan_.ranks) {
    ranks_.push_back(std::make_unique<RankStream>(plan_, group));
    if (auto err = ranks_.back()->open(); !err.empty()) return err;
  }
  current_.resize(ranks_.size());
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    if (!pull(i) && !error_.empty()) return error_;
  }
  return {};
}

bool JobStream::pull(std::size_t rank) {
  const TraceEvent* event = nullptr;
  const TraceFileInfo* file = nullptr;
  if (!ranks_[rank]->next(event, file)) {
    if (!ranks_[rank]->error().empty() && error_.empty()) error_ = ranks_[rank]->error();
    return false;
  }
  current_[rank] = {event, file};
  heap_.emplace_back(event->end_ns(), rank);
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  return true;
}

bool JobStream::next(const TraceEvent*& event, const TraceFileInfo*& file,
                     const RankGroup*& group) {
  if (last_ != static_cast<std::size_t>(-1)) {
    pull(last_);
    last_ = static_cast<std::size_t>(-1);
  }
  if (!error_.empty() || heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
  last_ = heap_.back().second;
  heap_.pop_back();
  event = current_[last_].first;
  file = current_[last_].second;
  group = &plan_.ranks[last_];
  return true;
}

std::vector<ReadStats> JobStream::stats() const {
  std::vector<ReadStats> out;
  for (const auto& rank : ranks_) {
    for (auto& s : rank->stats())
      out.push_back(std::move(s));
  }
  return out;
}

}  // namespace stallwatch::collector
