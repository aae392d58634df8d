// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

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
//
// start() and stop() on the main thread; merge(), send() and fill() on the
// tick thread; remote_timeline() on HTTP threads.
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

 private:
  void receive_loop();

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
};

// Whether the tree needs the daemon's CURVE key pair.
bool tree_needs_keys(const TreeConfig& tree);

}  // namespace stallwatch::collector
