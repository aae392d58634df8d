#include "engine/timeline_store.h"

namespace stallwatch::collector::detail {

void TimelineStore::expire(std::int64_t watermark_ns) {
  const std::int64_t cutoff = watermark_ns - keep_ns_;
  while (!regions_.empty() && regions_.front().end_ns < cutoff)
    regions_.pop_front();
  while (!marks_.empty() && marks_.front().ts_ns < cutoff)
    marks_.pop_front();
}

}  // namespace stallwatch::collector::detail
