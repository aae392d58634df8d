// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>

namespace stallwatch::agent {

// The one process-wide word every recording call reads first. kRunning is 0
// so the hot test is a compare with zero.
enum class AgentState : std::uint32_t {
  kRunning = 0,
  kUninitialized = 1,  // nothing started yet: the first call starts from the environment
  kDisabled = 2,       // STALLWATCH_ENABLE=0 / enable=0: calls do nothing
  kStopped = 3,        // after sw_stop() or a failed start: calls are dropped and counted
  kForkedChild = 4,    // a child of a running agent: the first call starts its own sender
};

inline constinit std::atomic<AgentState> agent_state{AgentState::kUninitialized};

}  // namespace stallwatch::agent
