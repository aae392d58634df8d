// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "daemon_config.h"
#include "engine/snapshot.h"
#include "ingest/receiver.h"
#include "keys/curve_key_pair.h"
#include "serve/api_backend.h"
#include "serve/published_state.h"
#include "tree/remote_ranks.h"
#include "tree/upstream_sender.h"

namespace stallwatch::collector {

// stallwatchd's part in a collector tree (docs/design.md, "Collector tree").
// As a head ([tree] listen): a Receiver for nodes' reports on a thread of
// its own ("tree-receive") feeding RemoteRanks, whose ranks merge() adds to
// each tick's snapshot. As a node ([upstream]): an UpstreamSender that sends
// each tick's snapshot (merged, so a nested head forwards its nodes' ranks
// too) without ever waiting. remote_timeline() fetches a remote rank's
// timeline from the node that reported it, over https when the node serves
// TLS (verified against [tree] node_ca_file, else the system's CAs), with
// [tree] node_token (else the daemon's own token); failures are counted.
// remote_series() asks every node that reports ranks of a job for its
// series the same way, all at once (at most kSeriesFetchers at a time,
// within kSeriesBudget in all), and merges them with the local ranks'.
//
// start() and stop() on the main thread; merge(), send() and fill() on the
// tick thread; remote_timeline() and remote_series() on HTTP threads.
class TreeLink {
 public:
  explicit TreeLink(const DaemonConfig& config);
  ~TreeLink();
  TreeLink(const TreeLink&) = delete;
  TreeLink& operator=(const TreeLink&) = delete;

  bool head() const { return remote_ != nullptr; }
  bool node() const { return sender_ != nullptr; }

  // Binds the head's endpoints (CURVE ones with `keys`, the daemon's pair)
  // and connects the upstream (as a CURVE client with `keys`). `http_port`
  // is the daemon's bound API port. Returns "" or the error.
  std::string start(const std::optional<CurveKeyPair>& keys, std::uint16_t http_port);
  void stop();

  // The snapshot with the remote ranks added (the same one when there are none).
  std::shared_ptr<const Snapshot> merge(std::shared_ptr<const Snapshot> local, std::int64_t now_ns);
  void send(const Snapshot& snapshot);
  void fill(TreeStatus& status) const;

  std::optional<RemoteTimeline> remote_timeline(std::string_view job, std::int32_t rank,
                                                std::int64_t seconds) const;
  std::optional<RemoteSeries> remote_series(std::string_view job, std::string_view metric,
                                            std::string_view window, std::int64_t seconds,
                                            const Series* local) const;

  static constexpr std::size_t kSeriesFetchers = 16;
  static constexpr std::chrono::milliseconds kSeriesBudget{5000};

 private:
  struct Fetched;
  void receive_loop();
  // GETs `target` from the node at `address`, within `timeout`.
  Fetched fetch(const std::string& address, const std::string& target,
                std::chrono::milliseconds timeout) const;
  // "<what> from node '<node>' at <base>: <why>", with a hint for TLS and tokens.
  std::string failure(std::string_view what, const std::string& node, const Fetched& f) const;
  // Logs `message` when it is new and keeps it as the last failure.
  void keep_failure(std::string& last, const std::string& message) const;
  // One node's series for remote_series(); nullopt with `error` set when it has none.
  std::optional<Series> node_series(const RemoteRanks::NodeRanks& node, const std::string& target,
                                    std::chrono::steady_clock::time_point deadline,
                                    std::vector<std::pair<std::string, std::string>>& failed,
                                    std::string& error) const;

  const DaemonConfig& config_;
  std::unique_ptr<RemoteRanks> remote_;
  std::unique_ptr<Receiver> receiver_;
  std::unique_ptr<UpstreamSender> sender_;
  std::thread receive_thread_;
  std::atomic<bool> running_{false};
  std::string token_;
  mutable std::atomic<std::uint64_t> timeline_fetches_{0};
  mutable std::atomic<std::uint64_t> timeline_failures_{0};
  mutable std::mutex failure_mutex_;
  mutable std::string last_timeline_failure_;  // failure_mutex_
  mutable std::atomic<std::uint64_t> series_fetches_{0};
  mutable std::atomic<std::uint64_t> series_failures_{0};
  mutable std::string last_series_failure_;  // failure_mutex_
  // Per node, why its series last failed, until it gives one again: each
  // outage is logged once, however often the page asks.
  mutable std::map<std::string, std::string, std::less<>> series_failing_;  // failure_mutex_
};

// Whether the tree needs the daemon's CURVE key pair.
bool tree_needs_keys(const TreeConfig& tree);

}  // namespace stallwatch::collector
