// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"
#include "traces/trace_event.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {

// Turns a rank's trace events into the agent batches a live process would
// have sent: one source per process (pid, role main/worker from the rank's
// training process), seq contiguous from 0, sent_at = the latest end seen so
// far (the source's watermark), names interned in the given NameTable.
//
// Conventions for Kineto traces, so the default classes apply: GPU rows
// (args.stream) become cat "gpu" on the rank's main process with tid = stream
// and device_source cupti, except cuda_sync rows (the device waiting, not
// busy), which keep their category; "enumerate(DataLoader)..." spans become
// dataloader/fetch on the main thread; "ProfilerStep#N" becomes a "step" mark
// with value N. Launch calls (HTA's launch names) and GPU rows with a
// correlation id carry it as the CUPTI source sends them (cat cuda_runtime,
// wire::kEventFlagCorrelation), so that the engine joins them as it does live. Aggregated dftracer
// records are skipped; durations are capped at 24 h and names at max_name_bytes, as the wire
// validator requires.
//
// A POSIX or STDIO call on a file (TraceEvent::file) is sent as the POSIX
// agent sends it: the process names each file once with a `posix_file` mark
// (name: the path, value: a file id from 1 on, at the first call on it), and
// the call carries the id in its subject with its bytes as the complete
// value (-1 when it moves none), so a replayed trace has top files by I/O
// time (docs/api.md). A process names at most max_files_per_process files;
// the calls on later ones carry no file.
//
// Not thread-safe. Memory: one pending batch and its file ids per process.
class BatchBuilder {
 public:
  using Emit = std::function<void(const DecodedBatch&)>;

  struct Options {
    std::string job = "trace";
    std::string kineto_job;           // when set, the job of Kineto ranks (keeps formats apart)
    std::size_t max_events = 4096;    // per batch
    std::int64_t time_offset_ns = 0;  // added to every timestamp (replay rebasing)
    std::string agent_version = "stallwatch-replay";
    std::size_t max_name_bytes = 1024;         // longer names are cut (wire limit)
    std::size_t max_files_per_process = 4096;  // as the engine's max_files_per_source
  };

  BatchBuilder(NameTable& names, Options options);

  void add(const RankGroup& group, const TraceFileInfo& file, const TraceEvent& event,
           const Emit& emit);
  // Sends what is pending for every process of the rank, as final batches.
  void finish_rank(const RankGroup& group, const Emit& emit);
  // Sends every live process's pending events (at the watermark they were
  // seen at), then an empty heartbeat with sent_at = max(its watermark, now_ns)
  // (already offset), so a quiet process still shows its clock moving.
  void flush_all(std::int64_t now_ns, const Emit& emit);

  std::uint64_t batches() const { return batches_; }
  std::uint64_t events() const { return events_; }

 private:
  struct Process {
    DecodedBatch batch;
    std::uint64_t next_seq = 0;
    std::int64_t watermark = std::numeric_limits<std::int64_t>::min();
    bool finished = false;
    std::map<std::string, std::uint32_t, std::less<>> files;  // path -> posix_file id
  };
  using Key = std::tuple<int, std::int64_t, std::int64_t>;  // format, rank, pid
  // A direct-mapped cache of (cat, name) -> ids in front of NameTable::intern;
  // the views point at the table's own copies.
  struct CachedNames {
    std::string_view cat;
    std::string_view name;
    NameId cat_id = NameTable::kEmpty;
    NameId name_id = NameTable::kEmpty;
    bool used = false;
    bool launch = false;  // a launch call's name (is_launch_call_name)
  };
  static constexpr std::size_t kNameCache = 512;

  Process& process(const RankGroup& group, const TraceFileInfo& file, std::int64_t pid);
  void flush(Process& p, bool final, const Emit& emit, bool heartbeat = false);
  NameId intern(std::string_view name);
  const CachedNames& intern_names(std::string_view cat, std::string_view name);
  // The file id of `path` in `p` (0: over the limit), naming it with a
  // posix_file mark at `ts_ns` the first time.
  std::uint32_t file_id(Process& p, std::string_view path, std::int64_t ts_ns, std::uint32_t tid);

  NameTable& names_;
  Options options_;
  std::map<Key, Process> processes_;
  Key last_key_{-1, 0, 0};
  Process* last_process_ = nullptr;
  std::array<CachedNames, kNameCache> name_cache_{};
  NameId gpu_cat_ = 0;
  NameId cuda_runtime_cat_ = 0;
  NameId dataloader_cat_ = 0;
  NameId fetch_name_ = 0;
  NameId step_name_ = 0;
  NameId posix_file_cat_ = 0;
  std::uint64_t batches_ = 0;
  std::uint64_t events_ = 0;
};

}  // namespace stallwatch::collector
