// SPDX-License-Identifier: MIT
#include "dfanalyzer_bins.h"

#include <algorithm>

namespace stallwatch::collector {

BinnedTimes::BinnedTimes(std::int64_t origin_ns, std::int64_t granularity_ns)
    : origin_ns_(origin_ns), granularity_ns_(std::max<std::int64_t>(granularity_ns, 1)) {}

bool BinnedTimes::add(std::int64_t pid, std::int64_t tid, std::int64_t ts_ns, std::int64_t dur_ns,
                      ClassMask classes) {
  if (ts_ns < origin_ns_) return false;
  const std::int64_t bin = (ts_ns - origin_ns_) / granularity_ns_;
  std::vector<ThreadSums>& threads = bins_[bin];
  auto it = std::find_if(threads.begin(), threads.end(),
                         [&](const ThreadSums& t) { return t.pid == pid && t.tid == tid; });
  if (it == threads.end()) {
    threads.push_back({pid, tid, 0, 0, 0});
    it = threads.end() - 1;
  }
  if ((classes & class_bit(EventClass::kCompute)) != 0) {
    it->compute += dur_ns;
  } else if ((classes & class_bit(EventClass::kIo)) != 0) {
    it->io += dur_ns;
  } else if ((classes & class_bit(EventClass::kAppIo)) != 0) {
    it->app_io += dur_ns;
  }
  return true;
}

void BinnedTimes::merge(const BinnedTimes& other) {
  for (const auto& [bin, threads] : other.bins_) {
    std::vector<ThreadSums>& mine = bins_[bin];
    for (const ThreadSums& t : threads) {
      auto it = std::find_if(mine.begin(), mine.end(),
                             [&](const ThreadSums& m) { return m.pid == t.pid && m.tid == t.tid; });
      if (it == mine.end()) {
        mine.push_back(t);
      } else {
        it->compute += t.compute;
        it->io += t.io;
        it->app_io += t.app_io;
      }
    }
  }
}

BinnedTotals BinnedTimes::finish() const {
  BinnedTotals out;
  out.granularity_ns = granularity_ns_;
  out.origin_ns = origin_ns_;
  out.bins = bins_.size();
  for (const auto& [bin, threads] : bins_) {
    std::int64_t compute = 0, io = 0, app_io = 0;
    for (const ThreadSums& t : threads) {
      compute = std::max(compute, t.compute);
      io = std::max(io, t.io);
      app_io = std::max(app_io, t.app_io);
    }
    out.compute += compute;
    out.io += io;
    out.app_io += app_io;
    out.unoverlapped_io += std::max<std::int64_t>(0, io - compute);
    out.unoverlapped_compute += std::max<std::int64_t>(0, compute - io);
    out.unoverlapped_app_io += std::max<std::int64_t>(0, app_io - compute);
    out.unoverlapped_app_compute += std::max<std::int64_t>(0, compute - app_io);
  }
  return out;
}

}  // namespace stallwatch::collector
