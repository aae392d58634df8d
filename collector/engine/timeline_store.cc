#include "engine/timeline_store.h"

#include <algorithm>

namespace stallwatch::collector::detail {

std::int64_t TimelineStore::end_of(const Packed& p, std::uint64_t seq) const {
  if (p.duration != kLong) return p.start_ns + p.duration;
  const auto it = std::lower_bound(long_ends_.begin(), long_ends_.end(), seq,
                                   [](const LongEnd& l, std::uint64_t s) { return l.seq < s; });
  return it != long_ends_.end() && it->seq == seq ? it->end_ns : p.start_ns;
}

void TimelineStore::drop_long_front() {
  dropped_end_ = std::max(dropped_end_, long_ends_.front().end_ns);
  long_ends_.pop_front();
}

TimelineEntry TimelineStore::region(std::size_t i) const {
  const Packed& p = regions_[i];
  TimelineEntry e;
  e.start_ns = p.start_ns;
  e.end_ns = end_of(p, first_seq() + i);
  e.cat = static_cast<NameId>(p.ids & (kNameLimit - 1));
  e.name = static_cast<NameId>((p.ids >> 20) & (kNameLimit - 1));
  e.tid = p.tid;
  e.source = static_cast<std::uint16_t>(p.ids >> 40);
  e.mask = static_cast<ClassMask>(p.ids >> 56);
  return e;
}

void TimelineStore::expire(std::int64_t watermark_ns) {
  const std::int64_t cutoff = watermark_ns - keep_ns_;
  while (!regions_.empty()) {
    const Packed& p = regions_.front();
    const bool is_long = p.duration == kLong;
    if ((is_long ? long_ends_.front().end_ns : p.start_ns + p.duration) >= cutoff) break;
    if (is_long) long_ends_.pop_front();
    regions_.pop_front();
  }
  while (!marks_.empty() && marks_.front().ts_ns < cutoff)
    marks_.pop_front();
}

}  // namespace stallwatch::collector::detail
