// SPDX-License-Identifier: MIT
#include "traces/batch_builder.h"

#include <algorithm>

#include "engine/launch_figures.h"
#include "quick_hash.h"
#include "stallwatch/event_flags.h"
#include "traces/json_value.h"

namespace stallwatch::collector {

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::string_view kDataLoaderPrefix = "enumerate(DataLoader)";
constexpr std::int64_t kMaxDurationNs = 24 * 3600 * 1'000'000'000LL;

// A Kineto row's args.correlation as the CUPTI source sends it.
void correlate(Event& ev, std::int64_t correlation) {
  if (correlation < 0 || correlation > 0xffffffffLL || ev.kind != EventKind::kComplete) return;
  ev.region_id = static_cast<std::uint32_t>(correlation);
  ev.flags = static_cast<std::uint8_t>(ev.flags | wire::kEventFlagCorrelation);
}

}  // namespace

BatchBuilder::BatchBuilder(NameTable& names, Options options)
    : names_(names), options_(std::move(options)) {
  gpu_cat_ = names_.intern("gpu");
  cuda_runtime_cat_ = names_.intern("cuda_runtime");
  dataloader_cat_ = names_.intern("dataloader");
  fetch_name_ = names_.intern("fetch");
  step_name_ = names_.intern("step");
  posix_file_cat_ = names_.intern("posix_file");
}

std::uint32_t BatchBuilder::file_id(Process& p, std::string_view path, std::int64_t ts_ns,
                                    std::uint32_t tid) {
  if (auto it = p.files.find(path); it != p.files.end()) return it->second;
  if (p.files.size() >= options_.max_files_per_process) return 0;
  const auto id = static_cast<std::uint32_t>(p.files.size() + 1);
  p.files.emplace(std::string(path), id);
  Event& mark = p.batch.events.emplace_back();
  mark.kind = EventKind::kMark;
  mark.ts_ns = ts_ns;
  mark.tid = tid;
  mark.cat = posix_file_cat_;
  mark.name = intern(path);
  mark.value = id;
  ++events_;
  return id;
}

NameId BatchBuilder::intern(std::string_view name) {
  if (name.size() > options_.max_name_bytes) name = name.substr(0, options_.max_name_bytes);
  return names_.intern(name);
}

const BatchBuilder::CachedNames& BatchBuilder::intern_names(std::string_view cat,
                                                            std::string_view name) {
  CachedNames& cached = name_cache_[detail::quick_hash(name, detail::quick_hash(cat)) % kNameCache];
  if (cached.used && detail::same_text(cached.name, name) && detail::same_text(cached.cat, cat)) {
    return cached;
  }
  cached.cat_id = intern(cat);
  cached.name_id = intern(name);
  cached.cat = names_.str(cached.cat_id);
  cached.name = names_.str(cached.name_id);
  cached.launch = is_launch_call_name(name);
  // A cut or overflowed name reads back differently and is never a hit.
  cached.used = true;
  return cached;
}

BatchBuilder::Process& BatchBuilder::process(const RankGroup& group, const TraceFileInfo& file,
                                             std::int64_t pid) {
  const Key key{static_cast<int>(group.format), group.rank, pid};
  if (last_process_ != nullptr && key == last_key_) return *last_process_;
  auto [it, inserted] = processes_.try_emplace(key);
  last_key_ = key;
  last_process_ = &it->second;
  Process& p = it->second;
  if (inserted) {
    SourceInfo& s = p.batch.source;
    s.job = group.format == TraceFormat::kKineto && !options_.kineto_job.empty()
                ? options_.kineto_job
                : options_.job;
    s.rank = static_cast<std::int32_t>(group.rank);
    s.host = group.host.empty() ? file.host : group.host;
    s.pid = static_cast<std::int32_t>(pid);
    const bool main = pid == group.main_pid || group.main_pid < 0;
    s.role = main ? ProcessRole::kMain : ProcessRole::kWorker;
    s.ppid =
        static_cast<std::int32_t>(main ? std::max<std::int64_t>(file.ppid, 0) : group.main_pid);
    s.agent_version = options_.agent_version;
    s.device_source = DeviceSource::kNone;
  }
  return p;
}

void BatchBuilder::flush(Process& p, bool final, const Emit& emit, bool heartbeat) {
  if (p.batch.events.empty() && !final && !heartbeat) return;
  p.batch.seq = p.next_seq++;
  p.batch.sent_at_ns = p.watermark == std::numeric_limits<std::int64_t>::min() ? 0 : p.watermark;
  p.batch.final = final;
  p.finished = final;
  ++batches_;
  emit(p.batch);
  p.batch.events.clear();
}

void BatchBuilder::add(const RankGroup& group, const TraceFileInfo& file, const TraceEvent& event,
                       const Emit& emit) {
  if (event.kind == TraceEventKind::kAggregated || event.kind == TraceEventKind::kMetadata) return;
  const bool kineto = group.format == TraceFormat::kKineto;
  const std::int64_t pid = kineto && group.main_pid >= 0 ? group.main_pid : event.os_pid;
  Process& p = process(group, file, pid);
  const std::uint32_t file_id_of_call =
      event.kind == TraceEventKind::kComplete && !event.file.empty()
          ? file_id(p, event.file, event.ts_ns + options_.time_offset_ns,
                    static_cast<std::uint32_t>(event.tid))
          : 0;
  // Filled in place: a copy of a part-written Event stalls on store forwarding.
  Event& ev = p.batch.events.emplace_back();
  ev.ts_ns = event.ts_ns + options_.time_offset_ns;
  ev.tid = static_cast<std::uint32_t>(event.tid);
  switch (event.kind) {
    case TraceEventKind::kComplete:
      ev.kind = EventKind::kComplete;
      ev.dur_ns = std::min(event.dur_ns, kMaxDurationNs);
      if (event.bytes >= 0 || file_id_of_call != 0) {
        ev.flags = wire::kEventFlagCompleteValue;
        ev.value = event.bytes >= 0 ? event.bytes : -1;
        ev.region_id = file_id_of_call;
      }
      break;
    case TraceEventKind::kCounter:
      ev.kind = EventKind::kCounter;
      ev.value = event.value;
      break;
    default:
      ev.kind = EventKind::kMark;
      ev.value = event.value;
      break;
  }
  const CachedNames& ids = intern_names(event.cat, event.name);
  ev.cat = ids.cat_id;
  ev.name = ids.name_id;
  if (kineto) {
    if (event.stream != -1 && event.cat != "cuda_sync") {
      ev.cat = gpu_cat_;
      ev.tid = static_cast<std::uint32_t>(event.stream);
      p.batch.source.device_source = DeviceSource::kCupti;
      correlate(ev, event.correlation);
    } else if (event.stream == -1) {
      ev.tid = static_cast<std::uint32_t>(pid);
      if (ids.launch && ev.kind == EventKind::kComplete) {
        ev.cat = cuda_runtime_cat_;
        correlate(ev, event.correlation);
      }
      if (event.name.substr(0, kDataLoaderPrefix.size()) == kDataLoaderPrefix) {
        ev.cat = dataloader_cat_;
        ev.name = fetch_name_;
      } else if (event.name.substr(0, kStepPrefix.size()) == kStepPrefix) {
        std::int64_t step = 0;
        if (detail::parse_int(event.name.substr(kStepPrefix.size()), step)) {
          ev.kind = EventKind::kMark;
          ev.dur_ns = 0;
          ev.value = step;
          ev.name = step_name_;
        }
      }
    }
  }
  const std::int64_t end = ev.ts_ns + ev.dur_ns;
  p.watermark = std::max(p.watermark, end);
  // The process's start: its earliest event before the first batch leaves.
  if (p.next_seq == 0 && (p.batch.source.start_ns == 0 || ev.ts_ns < p.batch.source.start_ns)) {
    p.batch.source.start_ns = ev.ts_ns;
  }
  ++events_;
  if (p.batch.events.size() >= options_.max_events) flush(p, false, emit);
}

void BatchBuilder::flush_all(std::int64_t now_ns, const Emit& emit) {
  for (auto& [key, p] : processes_) {
    if (p.finished) continue;
    flush(p, false, emit);  // pending events go out with the watermark they were seen at
    p.watermark = std::max(p.watermark, now_ns);
    flush(p, false, emit, true);
  }
}

void BatchBuilder::finish_rank(const RankGroup& group, const Emit& emit) {
  for (auto& [key, p] : processes_) {
    if (std::get<0>(key) != static_cast<int>(group.format) || std::get<1>(key) != group.rank)
      continue;
    flush(p, true, emit);
  }
}

}  // namespace stallwatch::collector
