// SPDX-License-Identifier: MIT
#include "rank_intervals.h"

#include <algorithm>

namespace stallwatch::collector {

namespace {

constexpr std::array<EventClass, 6> kTrackedClasses = {EventClass::kCompute,    EventClass::kAppIo,
                                                       EventClass::kIo,         EventClass::kFetch,
                                                       EventClass::kDeviceBusy, EventClass::kComm};
enum Slot { kCompute = 0, kAppIo, kIo, kFetch, kDevice, kComm };

}  // namespace

IntervalTotals& IntervalTotals::operator+=(const IntervalTotals& o) {
  compute += o.compute;
  app_io += o.app_io;
  io += o.io;
  fetch += o.fetch;
  device_busy += o.device_busy;
  comm += o.comm;
  unoverlapped_app_io += o.unoverlapped_app_io;
  unoverlapped_io += o.unoverlapped_io;
  unoverlapped_compute += o.unoverlapped_compute;
  unoverlapped_app_compute += o.unoverlapped_app_compute;
  compute_only += o.compute_only;
  fetch_not_device += o.fetch_not_device;
  return *this;
}

std::size_t RankIntervals::pending() const {
  std::size_t n = 0;
  for (int c = 0; c < kTracked; ++c)
    n += open_[c].size() + pending_[c].size();
  return n;
}

RankIntervals::RankIntervals(std::int64_t horizon_ns)
    : horizon_ns_(std::max<std::int64_t>(horizon_ns, 0)) {
  pending_normalized_.fill(true);
}

void RankIntervals::insert(ClassMask classes, std::int64_t start, std::int64_t end) {
  for (int c = 0; c < kTracked; ++c) {
    if ((classes & class_bit(kTrackedClasses[c])) == 0) continue;
    std::vector<Interval>& v = pending_[c];
    if (!pending_normalized_[c] || v.empty()) {
      v.push_back({start, end});
    } else if (end >= v.back().end) {
      // Ends only grow: what the new interval touches is at the back. The
      // merged start is this class's own: the next class starts over.
      std::int64_t merged_start = start;
      while (!v.empty() && v.back().end >= merged_start) {
        merged_start = std::min(merged_start, v.back().start);
        v.pop_back();
      }
      v.push_back({merged_start, end});
    } else if (start < v.back().start) {
      pending_normalized_[c] = false;
      v.push_back({start, end});
    }
    // else: inside the last interval already.
  }
}

bool RankIntervals::add(ClassMask classes, std::int64_t start, std::int64_t end) {
  ++since_seal_;
  if (end <= start) return true;
  bool on_time = true;
  if (start < sealed_to_) {
    on_time = false;
    if (end <= sealed_to_) return false;
    start = sealed_to_;
  }
  insert(classes, start, end);
  return on_time;
}

void RankIntervals::add_early(ClassMask classes, std::int64_t start, std::int64_t end) {
  if (end > start) insert(classes, start, end);
}

void RankIntervals::advance(std::int64_t watermark_ns) {
  watermark_ = std::max(watermark_, watermark_ns);
  if (since_seal_ < kSealEvery) return;
  since_seal_ = 0;
  peak_pending_ = std::max(peak_pending_, pending());
  if (watermark_ - horizon_ns_ > sealed_to_) seal(watermark_ - horizon_ns_);
}

void RankIntervals::seal(std::int64_t at) {
  for (int c = 0; c < kTracked; ++c) {
    std::vector<Interval>& open = open_[c];
    std::vector<Interval>& pending = pending_[c];
    if (!pending_normalized_[c]) normalize(pending);
    if (!pending.empty()) {
      // Open intervals ending before the first pending start stay as they
      // are; only the tail of the open list is merged.
      const auto untouched =
          std::partition_point(open.begin(), open.end(),
                               [&](const Interval& iv) { return iv.end < pending.front().start; });
      union_of(std::span<const Interval>(untouched, open.end()), pending, scratch_);
      open.erase(untouched, open.end());
      open.insert(open.end(), scratch_.begin(), scratch_.end());
    }
    pending.clear();
    pending_normalized_[c] = true;
    split_at(open_[c], at, sealed_[c]);
  }
  const auto& comp = sealed_[kCompute];
  const auto& app = sealed_[kAppIo];
  const auto& io = sealed_[kIo];
  const auto& fetch = sealed_[kFetch];
  const auto& dev = sealed_[kDevice];
  const std::int64_t c = measure(comp), a = measure(app), i = measure(io), f = measure(fetch);
  totals_.compute += c;
  totals_.app_io += a;
  totals_.io += i;
  totals_.fetch += f;
  totals_.device_busy += measure(dev);
  totals_.comm += measure(sealed_[kComm]);
  totals_.unoverlapped_app_io += a - intersection_measure(app, comp);
  totals_.unoverlapped_io += i - intersection_measure(io, comp);
  totals_.unoverlapped_compute += c - intersection_measure(comp, io);
  totals_.unoverlapped_app_compute += c - intersection_measure(comp, app);
  union_of(app, io, scratch_);
  totals_.compute_only += c - intersection_measure(comp, scratch_);
  totals_.fetch_not_device += f - intersection_measure(fetch, dev);
  sealed_to_ = at;
}

IntervalTotals RankIntervals::finish() {
  peak_pending_ = std::max(peak_pending_, pending());
  seal(std::numeric_limits<std::int64_t>::max());
  return totals_;
}

}  // namespace stallwatch::collector
