// SPDX-License-Identifier: MIT
#pragma once

// The engine's property tests, shared by every path a batch can take into the
// engine: random scenarios (scenario.h) are delivered one batch at a time
// through a DeliveryPath, and after every few deliveries every window metric
// of the engine must equal the brute-force oracle's (oracle.h), and so must
// every cumulative counter over the finalized time (RankSnapshot::finalized),
// which must also never be below its value at the previous tick. Seeds are
// fixed and printed on failure. tests/unit/engine runs the engine's own paths;
// tests/unit/ingest the daemon's (each batch through the wire).

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "scenario.h"

namespace stallwatch::collector::testing {

// How one delivery reaches the engine.
class DeliveryPath {
 public:
  virtual ~DeliveryPath() = default;
  // Before each scenario, with that scenario's fresh engine and names.
  virtual void start(Engine& engine, NameTable& names) = 0;
  // Delivers `b` (the `index`-th delivery of scenario `seed`) to the engine
  // given to start(); returns the name of the path it took, counted in the
  // totals.
  virtual std::string deliver(const DecodedBatch& b, std::size_t index, std::uint32_t seed) = 0;
};

// One kind of scenario and how many cases of it to run.
struct PropertyKind {
  std::string name;
  std::uint32_t first_seed = 0;
  int count = 0;
  ScenarioOptions options;
  std::int64_t history_ns = 0;  // 0: the property config's
};
// In order, shuffled, late, reordered within a process, crowded, short
// history with and without pauses, lost batches.
const std::vector<PropertyKind>& property_kinds();
// A kind's name as a test name: "short history, pauses" -> "ShortHistoryPauses".
std::string property_kind_id(const PropertyKind& kind);

struct PropertyTotals {
  std::size_t deliveries = 0;
  std::map<std::string, std::size_t> paths;  // deliveries by the path they took
  std::size_t ticks = 0;
  std::uint64_t late = 0;
  std::uint64_t unpaired = 0;
  std::uint64_t steps = 0;
  std::uint64_t finalized_steps = 0;  // in the counters at each case's last tick
  std::size_t settled = 0;            // finished ranks whose counters held their whole run
  std::size_t stall_increases = 0;    // ticks at which the data stall counter grew
  // Read and write calls in the counters at each case's last tick.
  std::int64_t finalized_read_ops = 0;
  std::size_t whole_io_calls =
      0;  // Complete calls with their bytes (wire::kEventFlagCompleteValue)
  std::int64_t finalized_write_ops = 0;
  // Top files compared (entries, over every tick and window), those no
  // mark named, and the calls in the windows' "other" rows.
  std::size_t top_files = 0;
  std::size_t unknown_files = 0;
  std::int64_t top_files_other_ops = 0;
  // Top kernels compared (entries, over every tick and window) and the
  // pieces of work in the windows' "other" rows.
  std::size_t top_kernels = 0;
  std::int64_t top_kernels_other_count = 0;
  // Verdict-window causes compared, by Cause (none, storage, preprocessing, unknown).
  std::array<std::size_t, 4> causes{};
};

// Runs `kind`'s cases (count x `scale`, x STALLWATCH_PROPERTY_SCALE from the
// environment) through `path`, stopping after three failing seeds; prints
// the totals. Failures are reported with ADD_FAILURE.
PropertyTotals run_property_cases(const PropertyKind& kind, DeliveryPath& path, double scale = 1);

}  // namespace stallwatch::collector::testing
