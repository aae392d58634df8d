// SPDX-License-Identifier: MIT
// The C ABI outside the recording hot path: status strings, configuration,
// lifecycle, names, clock and statistics. Every function catches everything.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

#include "agent.h"
#include "agent_config.h"
#include "process_clock.h"
#include "stallwatch/stallwatch.h"

struct sw_config {
  stallwatch::agent::AgentConfig value;
};

using stallwatch::agent::Agent;
using stallwatch::agent::agent_state;
using stallwatch::agent::AgentConfig;
using stallwatch::agent::AgentState;

extern "C" {

SW_API const char* sw_strerror(int status) noexcept {
  switch (status) {
    case SW_OK:
      return "ok";
    case SW_DROPPED:
      return "dropped: buffer full or agent stopped (counted)";
    case SW_DISABLED:
      return "disabled: STALLWATCH_ENABLE=0 or enable=0";
    case SW_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case SW_ERR_UNKNOWN_KEY:
      return "unknown configuration key";
    case SW_ERR_BAD_VALUE:
      return "configuration value malformed or out of range";
    case SW_ERR_ALREADY_STARTED:
      return "agent already started";
    case SW_ERR_NOT_STARTED:
      return "agent not started";
    case SW_ERR_NO_MEMORY:
      return "out of memory";
    case SW_ERR_TRANSPORT:
      return "ZeroMQ could not create or connect the socket";
    case SW_ERR_LIMIT:
      return "a fixed limit was reached";
    case SW_ERR_INTERNAL:
      return "internal error";
    default:
      return "unknown status";
  }
}

SW_API int sw_config_new(sw_config** out) noexcept {
  if (out == nullptr) return SW_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  try {
    *out = new sw_config{AgentConfig::from_environment()};
    return SW_OK;
  } catch (const std::bad_alloc&) {
    return SW_ERR_NO_MEMORY;
  } catch (...) {
    return SW_ERR_INTERNAL;
  }
}

SW_API void sw_config_free(sw_config* config) noexcept {
  delete config;
}

SW_API int sw_config_set(sw_config* config, const char* key, const char* value) noexcept {
  if (config == nullptr || key == nullptr || value == nullptr) return SW_ERR_INVALID_ARGUMENT;
  try {
    return config->value.set(key, value);
  } catch (const std::bad_alloc&) {
    return SW_ERR_NO_MEMORY;
  } catch (...) {
    return SW_ERR_INTERNAL;
  }
}

SW_API int sw_start(const sw_config* config) noexcept {
  Agent* agent = Agent::instance();
  if (agent == nullptr) return SW_ERR_NO_MEMORY;
  return agent->start(config != nullptr ? &config->value : nullptr);
}

SW_API int sw_stop(void) noexcept {
  Agent* agent = Agent::instance();
  return agent != nullptr ? agent->stop() : SW_ERR_NO_MEMORY;
}

SW_API int sw_flush(int timeout_ms) noexcept {
  Agent* agent = Agent::instance();
  return agent != nullptr ? agent->flush(timeout_ms) : SW_ERR_NO_MEMORY;
}

SW_API int sw_is_enabled(void) noexcept {
  switch (agent_state.load(std::memory_order_acquire)) {
    case AgentState::kRunning:
    case AgentState::kForkedChild:
      return 1;
    case AgentState::kUninitialized: {
      const char* enable = std::getenv("STALLWATCH_ENABLE");
      if (enable == nullptr || enable[0] == '\0') return 1;
      try {
        AgentConfig probe;
        return probe.set("enable", enable) != SW_OK || probe.enable ? 1 : 0;
      } catch (...) {
        return 1;
      }
    }
    default:
      return 0;
  }
}

SW_API int sw_is_running(void) noexcept {
  const AgentState state = agent_state.load(std::memory_order_acquire);
  return state == AgentState::kRunning || state == AgentState::kForkedChild ? 1 : 0;
}

SW_API sw_name_t sw_intern_n(const char* str, size_t len) noexcept {
  if (str == nullptr) return 0;
  Agent* agent = Agent::instance();
  if (agent == nullptr) return 0;
  agent->ensure_started();
  if (agent_state.load(std::memory_order_acquire) == AgentState::kDisabled) return 0;
  return agent->names().intern(std::string_view(str, len));
}

SW_API sw_name_t sw_intern(const char* str) noexcept {
  if (str == nullptr) return 0;
  return sw_intern_n(str, strnlen(str, stallwatch::agent::NameTable::kMaxLength + 1));
}

SW_API const char* sw_name_str(sw_name_t name) noexcept {
  Agent* agent = Agent::instance();
  if (agent == nullptr) return nullptr;
  return agent->names().lookup(name).data();
}

SW_API int64_t sw_now_ns(void) noexcept {
  return stallwatch::agent::ProcessClock::instance().now_ns();
}

SW_API int sw_get_stats(sw_stats* out) noexcept {
  if (out == nullptr || out->size < 2 * sizeof(uint32_t)) return SW_ERR_INVALID_ARGUMENT;
  sw_stats stats{};
  stats.size = static_cast<uint32_t>(std::min<size_t>(out->size, sizeof(sw_stats)));
  Agent* agent = Agent::instance();
  if (agent != nullptr) {
    try {
      agent->fill_stats(stats);
    } catch (...) {
      return SW_ERR_INTERNAL;
    }
  } else {
    stats.pid = static_cast<int32_t>(getpid());
    stats.ppid = static_cast<int32_t>(getppid());
  }
  std::memcpy(out, &stats, stats.size);
  return SW_OK;
}

}  // extern "C"
