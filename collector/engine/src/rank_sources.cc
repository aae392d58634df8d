// SPDX-License-Identifier: MIT
#include "rank_sources.h"

#include <algorithm>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

SourceTracker* RankSources::find_slow(const SourceInfo& info, std::size_t& index) {
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i].info.pid == info.pid && sources_[i].info.host == info.host) {
      index = i;
      return &sources_[i];
    }
  }
  return nullptr;
}

SourceTracker& RankSources::add(const DecodedBatch& batch, std::int64_t first_time_ns,
                                std::size_t& index) {
  index = sources_.size();
  SourceTracker& src = sources_.emplace_back();
  src.info = batch.source;
  const std::int64_t claimed = clamp_time(batch.source.start_ns);
  src.start_ns = claimed > 0 && claimed <= first_time_ns ? claimed : first_time_ns;
  src.next_seq = batch.seq + 1;
  refresh_device();
  return src;
}

void RankSources::continue_with(SourceTracker& src, const DecodedBatch& batch) {
  if (batch.seq > src.next_seq) src.counters.lost_batches += batch.seq - src.next_seq;
  src.next_seq = batch.seq + 1;
  const SourceInfo& in = batch.source;
  if (src.info.role == in.role && src.info.device_source == in.device_source &&
      src.info.ppid == in.ppid && src.info.agent_version == in.agent_version) {
    return;
  }
  src.info.role = in.role;
  src.info.ppid = in.ppid;
  src.info.agent_version = in.agent_version;
  if (src.info.device_source != in.device_source) {
    // Device events sent under the old declaration (a CUPTI source that fell
    // back, say) say nothing about what comes now.
    src.info.device_source = in.device_source;
    src.device_events = false;
    refresh_device();
  }
}

void RankSources::receive(SourceTracker& src, std::size_t index, const DecodedBatch& batch,
                          std::int64_t now_ns, std::size_t events) {
  last_ = index;
  src.last_seen_ns = now_ns;
  last_seen_ns_ = std::max(last_seen_ns_, now_ns);
  src.counters.batches_received += 1;
  src.counters.events_received += events;
  src.counters.agent_dropped += batch.dropped_since_last;
  if (src.finished && !batch.final) src.finished = false;
}

void RankSources::refresh_state() {
  bool all = !sources_.empty();
  std::int64_t end = kNoTime;
  for (const auto& s : sources_) {
    all = all && s.finished;
    if (s.finished) end = std::max({end, s.final_at_ns, s.watermark_ns});
  }
  finished_ = all;
  if (all) end_ns_ = std::max(end, start_ns_);
}

bool RankSources::lower_start(std::int64_t start_ns, std::int64_t horizon_ns) {
  if (!has_start_) {
    has_start_ = true;
    start_ns_ = start_ns;
    return true;
  }
  if (horizon_ns != kNoTime) start_ns = std::max(start_ns, horizon_ns);
  if (start_ns >= start_ns_) return false;
  start_ns_ = start_ns;
  return true;
}

void RankSources::expire_orphan_ends(std::int64_t horizon_ns) {
  for (auto& src : sources_) {
    auto& entries = src.open.entries();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].orphan_end && entries[i].end_eff_ns < horizon_ns) {
        src.counters.unpaired_events += 1;
        continue;
      }
      entries[kept++] = entries[i];
    }
    entries.resize(kept);
  }
}

RankState RankSources::state(std::int64_t now_ns, std::int64_t silent_after_ns) const {
  if (finished_) return RankState::kFinished;
  if (now_ns - last_seen_ns_ >= silent_after_ns) return RankState::kSilent;
  return RankState::kActive;
}

std::uint64_t RankSources::late_events() const {
  std::uint64_t n = 0;
  for (const auto& s : sources_)
    n += s.counters.late_events;
  return n;
}

void RankSources::describe(RankSnapshot& out) const {
  out.device_source = device_;
  out.start_ns = start_ns_;
  out.end_ns = finished_ ? end_ns_ : watermark_ns_;
  out.last_seen_ns = last_seen_ns_;
  out.watermark_ns = watermark_ns_;
  out.processes.reserve(sources_.size());
  for (const auto& src : sources_) {
    ProcessSnapshot& p = out.processes.emplace_back();
    p.host = src.info.host;
    p.pid = src.info.pid;
    p.ppid = src.info.ppid;
    p.role = src.info.role;
    p.device_source = src.info.device_source;
    p.agent_version = src.info.agent_version;
    p.start_ns = src.start_ns;
    p.last_seen_ns = src.last_seen_ns;
    p.watermark_ns = src.watermark_ns;
    p.finished = src.finished;
    for (const OpenRegion& r : src.open)
      p.open_regions += r.orphan_end ? 0 : 1;
    p.counters = src.counters;
    Counters& c = out.counters;
    c.events_received += src.counters.events_received;
    c.batches_received += src.counters.batches_received;
    c.agent_dropped += src.counters.agent_dropped;
    c.lost_batches += src.counters.lost_batches;
    c.late_events += src.counters.late_events;
    c.unpaired_events += src.counters.unpaired_events;
  }
}

std::size_t RankSources::bytes() const {
  std::size_t n = sources_.capacity() * sizeof(SourceTracker);
  for (const auto& s : sources_) {
    n += s.open.bytes() + s.info.host.capacity() + s.info.job.capacity() +
         s.info.agent_version.capacity() +
         s.files.size() * (sizeof(*s.files.begin()) + 2 * sizeof(void*)) +
         s.files.bucket_count() * sizeof(void*);
  }
  return n;
}

void RankSources::refresh_device() {
  bool cuda_events = false;
  bool own_events = false;
  for (const auto& s : sources_) {
    if (s.info.device_source == DeviceSource::kCupti) {
      device_ = DeviceSignal::kCupti;
      return;
    }
    cuda_events |= s.info.device_source == DeviceSource::kCudaEvents;
    own_events |= s.device_events;
  }
  if (cuda_events) {
    device_ = DeviceSignal::kCudaEvents;
  } else {
    device_ = own_events ? DeviceSignal::kTrace : DeviceSignal::kComputeProxy;
  }
}

}  // namespace stallwatch::collector::detail
