// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine_config.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

inline constexpr std::int64_t kNodeClockWindowNs = 60'000'000'000;

struct RemoteRanksStats {
  std::uint64_t nodes = 0;  // nodes heard from and not yet forgotten
  std::uint64_t ranks = 0;  // remote ranks held
  std::uint64_t reports_received = 0;
  std::uint64_t reports_rejected = 0;  // undecodable, another version or other windows
  // Ranks whose calls came as a delta against calls this head did not hold
  // (a report lost, or this head started since): their calls stay as they
  // were until the node sends them whole.
  std::uint64_t calls_out_of_step = 0;
  std::uint64_t bytes_received = 0;
  std::string last_rejection;  // "<why>" of the last refused report, or ""
};

// A head's view of the ranks its nodes report (docs/design.md, "Collector
// tree"): the latest snapshot of every remote rank, which node sent it and
// when. merge_into() adds them to the head's own snapshot, beside its local
// ranks, and forms the jobs again (summarize_job), so every consumer of the
// snapshot (API, web page, /metrics, alerts, an upstream of its own) serves
// them as local ranks. The ranks' COMM calls are matched again over all the
// job's ranks (summarize_job_with_peers), so peer wait and held_back are
// those of one collector (a node sends each rank's calls as a delta against
// what it sent before, which this head applies). A remote rank's clock offset is its host's against
// its node plus the node's against this head, estimated like a host's
// (docs/design.md, "Clocks"): the largest report time minus receive time over
// the last kNodeClockWindowNs. A rank whose node has not reported it for
// `silent_after_ns` is shown silent (unless it had finished); after
// `forget_after_ns` it is dropped. A local rank wins over a remote one with
// the same job and rank.
//
// Thread-safe: accept() on the tree receive thread, merge_into() on the tick
// thread, owner() on HTTP threads; one mutex, held only to copy.
class RemoteRanks {
 public:
  RemoteRanks(std::vector<std::int64_t> windows_ns, std::int64_t silent_after_ns,
              std::int64_t forget_after_ns);

  // Decodes one report frame received at `now_ns` (the head's clock) and
  // keeps its ranks; a refused frame is counted.
  void accept(std::span<const std::uint8_t> frame, std::int64_t now_ns);

  // Adds the remote ranks to `snapshot` (jobs, their peer matching and the
  // overall counters formed again with `config`).
  void merge_into(Snapshot& snapshot, std::int64_t now_ns, const EngineConfig& config);

  // The node that reported the rank and its API address (its base URL,
  // e.g. "https://node-3:8787", or "host:port" for plain http); nullopt for
  // a rank no node reports, or one whose node gave no address.
  struct Owner {
    std::string node;
    std::string address;
    bool operator==(const Owner&) const = default;
  };
  std::optional<Owner> owner(std::string_view job, std::int32_t rank) const;

  // Each node that reports ranks of `job`, by name: its API address (""
  // when it gave none), its clock minus this head's and those ranks (sorted).
  struct NodeRanks {
    std::string node;
    std::string address;
    std::int64_t clock_offset_ns = 0;
    std::vector<std::int32_t> ranks;
    bool operator==(const NodeRanks&) const = default;
  };
  std::vector<NodeRanks> job_nodes(std::string_view job) const;

  bool empty() const;
  RemoteRanksStats stats() const;

 private:
  struct Entry {
    RankSnapshot rank;
    std::string node;
    std::int64_t received_ns = 0;
    std::uint64_t calls_tick = 0;  // the node tick of rank.comm_calls; 0: out of step
  };
  struct Node {
    std::string http_address;
    std::int64_t last_report_ns = 0;
    // The node's clock minus this head's: per second of receive time, the
    // largest report now_ns - receive time (oldest first).
    std::deque<std::pair<std::int64_t, std::int64_t>> clock_seconds;
    std::int64_t clock_offset_ns = 0;
  };
  using Key = std::pair<std::string, std::int32_t>;

  const std::vector<std::int64_t> windows_ns_;
  const std::int64_t silent_after_ns_;
  const std::int64_t forget_after_ns_;
  mutable std::mutex mutex_;
  std::map<Key, Entry, std::less<>> ranks_;
  std::map<std::string, Node, std::less<>> nodes_;
  RemoteRanksStats stats_;  // counters only; nodes and ranks filled by stats()
};

}  // namespace stallwatch::collector
