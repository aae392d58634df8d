// SPDX-License-Identifier: MIT
#pragma once

// Builds DecodedBatches for engine tests: one Source per builder, times in
// nanoseconds (use ms()/us()), sequence numbers counted automatically.

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/decoded_batch.h"
#include "engine/engine.h"
#include "engine/name_table.h"

namespace stallwatch::collector::testing {

inline constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // a grid-aligned epoch time
constexpr std::int64_t us(std::int64_t v) {
  return v * 1'000;
}
constexpr std::int64_t ms(std::int64_t v) {
  return v * 1'000'000;
}
constexpr std::int64_t sec(std::int64_t v) {
  return v * 1'000'000'000;
}

class BatchBuilder {
 public:
  BatchBuilder(NameTable& names, std::string job, std::int32_t rank, std::int32_t pid,
               ProcessRole role = ProcessRole::kMain, std::string host = "host-a");

  SourceInfo& source() { return batch_.source; }
  std::uint32_t main_tid() const { return static_cast<std::uint32_t>(batch_.source.pid); }

  // tid 0 means the process's main thread (tid == pid).
  BatchBuilder& complete(std::string_view cat, std::string_view name, std::int64_t ts,
                         std::int64_t dur, std::uint32_t tid = 0);
  // The Complete added last carries CUDA correlation id `correlation`
  // (wire::kEventFlagCorrelation), as the CUPTI source sends launch calls
  // and the work they launched.
  BatchBuilder& correlated(std::uint32_t correlation);
  // A POSIX or stdio call timed whole, as libstallwatch_posix.so sends it:
  // its bytes and file id (wire::kEventFlagCompleteValue).
  BatchBuilder& call(std::string_view cat, std::string_view name, std::int64_t ts, std::int64_t dur,
                     std::uint32_t file, std::int64_t bytes, std::uint32_t tid = 0);
  // `value`: the BEGIN's payload (a POSIX call's file id).
  BatchBuilder& begin(std::string_view cat, std::string_view name, std::int64_t ts,
                      std::uint32_t region_id, std::uint32_t tid = 0, std::int64_t value = 0);
  // `value`: the END's payload (wire::kEndLoopExhausted for a loop-ending wait).
  BatchBuilder& end(std::int64_t ts, std::uint32_t region_id, std::uint32_t tid = 0,
                    std::int64_t value = 0);
  BatchBuilder& mark(std::string_view name, std::int64_t ts, std::int64_t value,
                     std::uint32_t tid = 0);
  // The mark naming file id `file` (cat posix_file, as libstallwatch_posix.so sends at open).
  BatchBuilder& file_name(std::string_view path, std::uint32_t file, std::int64_t ts,
                          std::uint32_t tid = 0);
  BatchBuilder& counter(std::string_view name, std::int64_t ts, std::int64_t value,
                        std::uint32_t tid = 0);

  // Returns the batch built so far (sent at `sent_at`) and starts a new one.
  DecodedBatch take(std::int64_t sent_at, bool final = false);
  void set_next_seq(std::uint64_t seq) { seq_ = seq; }

 private:
  Event& add(EventKind kind, std::string_view cat, std::string_view name, std::int64_t ts,
             std::uint32_t tid);

  NameTable& names_;
  DecodedBatch batch_;
  std::uint64_t seq_ = 0;
};

// A name table and an engine over it, for tests.
struct Harness {
  explicit Harness(EngineConfig config);
  BatchBuilder source(std::int32_t pid, ProcessRole role = ProcessRole::kMain,
                      std::string job = "job", std::int32_t rank = 0);
  // ingest() at the batch's sent_at as collector time.
  void send(const DecodedBatch& b) { engine.ingest(b, b.sent_at_ns); }
  // Ticks and keeps the snapshot alive until the next tick.
  std::shared_ptr<const Snapshot> tick(std::int64_t now) {
    last = engine.tick(now);
    return last;
  }

  NameTable names;
  Engine engine;
  std::shared_ptr<const Snapshot> last;
};

// An engine config with a 1 ms grid, 10 ms / 30 ms windows and 5 ms lateness,
// so tests and the property oracle work on small integer microseconds.
EngineConfig small_config();

const RankSnapshot* find_rank(const Snapshot& s, std::string_view job, std::int32_t rank);
// The window of `r` with length `window_ns` (0 = totals).
const WindowMetrics& window(const RankSnapshot& r, std::int64_t window_ns);

}  // namespace stallwatch::collector::testing
