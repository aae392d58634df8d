// SPDX-License-Identifier: MIT
#pragma once

#include <gtest/gtest.h>
#include <stallwatch/stallwatch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test_collector.h"

namespace stallwatch::test {

// Generous: the test machines are small and shared.
inline constexpr std::chrono::seconds kPatience{30};

using Settings = std::vector<std::pair<const char*, const char*>>;

// sw_start() with collector = `endpoint`, job "unit-test", quiet diagnostics
// and `settings`.
inline int start_agent(const std::string& endpoint, const Settings& settings = {}) {
  sw_config* config = nullptr;
  int rc = sw_config_new(&config);
  if (rc != SW_OK) return rc;
  rc = sw_config_set(config, "collector", endpoint.c_str());
  if (rc == SW_OK) rc = sw_config_set(config, "job", "unit-test");
  for (const auto& [key, value] : settings) {
    if (rc == SW_OK) rc = sw_config_set(config, key, value);
  }
  if (rc == SW_OK) rc = sw_start(config);
  sw_config_free(config);
  return rc;
}

inline sw_stats agent_stats() {
  sw_stats stats{};
  stats.size = sizeof(stats);
  sw_get_stats(&stats);
  return stats;
}

// Batches from `pid` in arrival order.
inline std::vector<const ReceivedBatch*> batches_of(const std::vector<ReceivedBatch>& all,
                                                    std::int32_t pid) {
  std::vector<const ReceivedBatch*> out;
  for (const ReceivedBatch& batch : all) {
    if (batch.pid == pid) out.push_back(&batch);
  }
  return out;
}

// Sequence numbers account for every batch: from 0, in order, without gaps,
// one per batch the agent handed to ZeroMQ (the sender waits for its
// connection before its first send, and these tests' collectors keep up).
inline void expect_seq_contiguous(const std::vector<ReceivedBatch>& all, std::int32_t pid,
                                  const sw_stats& stats) {
  const std::vector<const ReceivedBatch*> batches = batches_of(all, pid);
  ASSERT_FALSE(batches.empty());
  for (std::size_t i = 0; i < batches.size(); ++i) {
    ASSERT_EQ(batches[i]->seq, i) << "seq gap or reordering";
  }
  EXPECT_EQ(stats.send_failures, 0u);
  EXPECT_EQ(batches.size(), stats.batches_sent);
}

// Waits for the first batch from this process (a heartbeat: use a short
// heartbeat_ms), i.e. until the agent's connection is up.
inline bool wait_connected(TestCollector& collector) {
  return collector.receive_until([](const auto& batches) { return !batches.empty(); }, kPatience);
}

}  // namespace stallwatch::test
