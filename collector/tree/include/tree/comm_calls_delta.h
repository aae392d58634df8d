// SPDX-License-Identifier: MIT
#pragma once

// A rank's COMM calls as a node report carries them: what changed since the
// node last sent them, not the whole list (docs/design.md, "Collector tree").
// Calls leave the front of the list as the node's timeline drops them, new
// ones join at the back, and the first calls of the oldest step take new
// ordinals when the timeline drops that step's earlier calls: a delta drops
// calls from the front, replaces the next ones, keeps a run and appends the
// rest.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/comm_call.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

// The list it describes is `front` + calls [drop + front.size(), drop +
// front.size() + keep) of the list sent at node tick `base` + `tail`; with
// `base` 0, front + tail (drop and keep 0).
struct CommCallsDelta {
  std::uint64_t base = 0;
  std::uint32_t drop = 0;
  std::vector<CommCall> front;
  std::uint32_t keep = 0;
  std::vector<CommCall> tail;
  bool operator==(const CommCallsDelta&) const = default;
};

// The delta that turns `sent` (sent at node tick `sent_tick`, not 0) into
// `calls`.
CommCallsDelta diff_comm_calls(const std::vector<CommCall>& sent, std::uint64_t sent_tick,
                               const std::vector<CommCall>& calls);

// Applies `delta` to `calls`, the list sent at `delta.base` (ignored for a
// whole list). False, with `calls` unchanged, when `delta` does not fit it.
bool apply_comm_calls(const CommCallsDelta& delta, std::vector<CommCall>& calls);

// What a node last sent of each of its ranks' calls. Each rank's calls go
// whole the first time, after clear(), and every kWholeEvery ticks of their
// own (a head that lost a report, or started since, gets them back within
// that), else as the delta against what was last sent. Thread-confined, like
// its UpstreamSender.
class SentCommCalls {
 public:
  static constexpr std::uint64_t kWholeEvery = 20;

  // The delta for `rank` (its job, rank and comm_calls) at node tick `tick`
  // (not 0), remembered as sent.
  CommCallsDelta next(const RankSnapshot& rank, std::uint64_t tick);
  // Forgets the ranks next() was not called for since the last end_tick().
  void end_tick();
  // Forgets everything: a report was not sent.
  void clear();

 private:
  struct Sent {
    std::uint64_t tick = 0;
    std::vector<CommCall> calls;
  };
  using Key = std::pair<std::string, std::int32_t>;
  std::map<Key, Sent> sent_;
  std::map<Key, Sent> next_;
};

}  // namespace stallwatch::collector
