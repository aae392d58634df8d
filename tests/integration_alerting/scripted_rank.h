// SPDX-License-Identifier: MIT
#pragma once

// Streams one rank's events to a stallwatchd ingest endpoint in real time, as
// an agent would, from a script: every 100 ms slot of agent time (Unix epoch
// ns, slots on the 100 ms grid) holds a fetch.iter region for the configured
// stall share of the slot followed by a compute region for the rest, and a
// step mark. Without a device signal compute stands in for device activity,
// so the rank's data_stall_ratio and device_idle_ratio over whole windows are
// exactly the stall share. Frames are built with the collector's
// BatchEncoder and sent over a ZeroMQ PUSH socket. Test-only code; one
// sender thread per instance.

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace stallwatch::test {

class ScriptedRank {
 public:
  ScriptedRank(std::string endpoint, std::string job, std::int32_t rank, double stall_share);
  ~ScriptedRank();
  ScriptedRank(const ScriptedRank&) = delete;
  ScriptedRank& operator=(const ScriptedRank&) = delete;

  void start();
  void stop();
  // Applies from the next slot on; in [0, 1].
  void set_stall_share(double share) { stall_permille_ = static_cast<int>(share * 1000 + 0.5); }

  // Unix ns at which the first batch was sent (0 before).
  std::int64_t first_sent_ns() const { return first_sent_ns_; }
  // Agent time (Unix ns) of the first slot with a share other than the one
  // before it, once set_stall_share() changed it; 0 before.
  std::int64_t share_changed_at_ns() const { return share_changed_at_ns_; }
  std::int64_t batches_sent() const { return batches_sent_; }

 private:
  void run();

  std::string endpoint_;
  std::string job_;
  std::int32_t rank_;
  std::atomic<int> stall_permille_;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> first_sent_ns_{0};
  std::atomic<std::int64_t> share_changed_at_ns_{0};
  std::atomic<std::int64_t> batches_sent_{0};
  std::thread thread_;
};

}  // namespace stallwatch::test
