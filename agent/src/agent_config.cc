// SPDX-License-Identifier: MIT
#include "agent_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include "diagnostics.h"
#include "stallwatch/curve_key.h"
#include "stallwatch/protocol.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {
namespace {

bool parse_uint(std::string_view text, std::uint64_t min, std::uint64_t max, std::uint32_t& out) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return false;
  }
  out = static_cast<std::uint32_t>(value);
  return true;
}

bool parse_bool(std::string_view text, bool& out) {
  if (text == "1" || text == "true" || text == "on" || text == "yes") {
    out = true;
  } else if (text == "0" || text == "false" || text == "off" || text == "no") {
    out = false;
  } else {
    return false;
  }
  return true;
}

bool is_power_of_two(std::uint32_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : nullptr;
}

// Keys read from STALLWATCH_<KEY> (job and rank have their own fallbacks).
constexpr struct {
  const char* key;
  const char* variable;
} kEnvironmentKeys[] = {
    {"collector", "STALLWATCH_COLLECTOR"},
    {"enable", "STALLWATCH_ENABLE"},
    {"role", "STALLWATCH_ROLE"},
    {"device_source", "STALLWATCH_DEVICE_SOURCE"},
    {"flush_interval_ms", "STALLWATCH_FLUSH_INTERVAL_MS"},
    {"heartbeat_ms", "STALLWATCH_HEARTBEAT_MS"},
    {"buffer_events", "STALLWATCH_BUFFER_EVENTS"},
    {"batch_events", "STALLWATCH_BATCH_EVENTS"},
    {"send_hwm", "STALLWATCH_SEND_HWM"},
    {"linger_ms", "STALLWATCH_LINGER_MS"},
    {"collector_key", "STALLWATCH_COLLECTOR_KEY"},
    {"collector_key_file", "STALLWATCH_COLLECTOR_KEY_FILE"},
    {"agent_key_file", "STALLWATCH_AGENT_KEY_FILE"},
    {"proc_io", "STALLWATCH_PROC_IO"},
};

}  // namespace

AgentConfig AgentConfig::from_environment() {
  AgentConfig config;
  const char* job = env("STALLWATCH_JOB");
  if (job == nullptr) job = env("TORCHELASTIC_RUN_ID");
  if (job == nullptr) job = env("SLURM_JOB_ID");
  if (job == nullptr || config.set("job", job) != SW_OK) {
    config.job = host_name() + "-" + std::to_string(getpid());
  }
  for (const char* name : {"STALLWATCH_RANK", "RANK"}) {
    if (const char* rank = env(name); rank != nullptr) {
      if (config.set("rank", rank) == SW_OK) break;
      report_problem("ignoring %s='%s': not a rank", name, rank);
    }
  }
  // The POSIX capture (libstallwatch_posix.so) wants the bytes that bypass read() too.
  if (const char* posix = env("STALLWATCH_POSIX");
      posix != nullptr && std::string_view(posix) == "1")
    config.proc_io = true;
  for (const auto& [key, variable] : kEnvironmentKeys) {
    if (const char* value = env(variable); value != nullptr && config.set(key, value) != SW_OK) {
      report_problem("ignoring %s='%s': out of range or malformed", variable, value);
    }
  }
  return config;
}

int AgentConfig::set(std::string_view key, std::string_view value) {
  std::uint32_t number = 0;
  if (key == "collector") {
    if (value.size() > wire::kMaxStringBytes) return SW_ERR_BAD_VALUE;
    collector = std::string(value);
  } else if (key == "job") {
    if (value.empty() || value.size() > wire::kMaxStringBytes) return SW_ERR_BAD_VALUE;
    job = std::string(value);
  } else if (key == "rank") {
    if (!parse_uint(value, 0, INT32_MAX, number)) return SW_ERR_BAD_VALUE;
    rank = static_cast<std::int32_t>(number);
  } else if (key == "enable") {
    if (!parse_bool(value, enable)) return SW_ERR_BAD_VALUE;
  } else if (key == "role") {
    if (value == "main") {
      role = ProcessRole::kMain;
    } else if (value == "worker") {
      role = ProcessRole::kWorker;
    } else {
      return SW_ERR_BAD_VALUE;
    }
  } else if (key == "device_source") {
    if (value == "none") {
      device_source = DeviceSource::kNone;
    } else if (value == "cupti") {
      device_source = DeviceSource::kCupti;
    } else if (value == "cuda-events") {
      device_source = DeviceSource::kCudaEvents;
    } else if (value == "nvml") {
      device_source = DeviceSource::kNvml;
    } else {
      return SW_ERR_BAD_VALUE;
    }
  } else if (key == "flush_interval_ms") {
    if (!parse_uint(value, 1, 50, flush_interval_ms)) return SW_ERR_BAD_VALUE;
  } else if (key == "heartbeat_ms") {
    if (!parse_uint(value, 10, 1000, heartbeat_ms)) return SW_ERR_BAD_VALUE;
  } else if (key == "buffer_events") {
    if (!parse_uint(value, 256, 1u << 20, number) || !is_power_of_two(number)) {
      return SW_ERR_BAD_VALUE;
    }
    buffer_events = number;
  } else if (key == "batch_events") {
    if (!parse_uint(value, 64, wire::kMaxEventsPerBatch, batch_events)) return SW_ERR_BAD_VALUE;
  } else if (key == "send_hwm") {
    if (!parse_uint(value, 1, 1'000'000, send_hwm)) return SW_ERR_BAD_VALUE;
  } else if (key == "proc_io") {
    if (!parse_bool(value, proc_io)) return SW_ERR_BAD_VALUE;
  } else if (key == "linger_ms") {
    if (!parse_uint(value, 0, 10'000, linger_ms)) return SW_ERR_BAD_VALUE;
  } else if (key == "collector_key") {
    if (!value.empty() && !wire::is_z85_key(value)) return SW_ERR_BAD_VALUE;
    collector_key = std::string(value);
  } else if (key == "collector_key_file") {
    collector_key_file = std::string(value);
  } else if (key == "agent_key_file") {
    agent_key_file = std::string(value);
  } else {
    return SW_ERR_UNKNOWN_KEY;
  }
  return SW_OK;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

std::string default_collector_endpoint(const char* system_socket) {
  std::string user_socket;
  if (const char* runtime = env("XDG_RUNTIME_DIR"); runtime != nullptr) {
    user_socket = std::string(runtime) + "/stallwatch/ingest.sock";
  } else {
    user_socket = "/tmp/stallwatch-" + std::to_string(getuid()) + "/ingest.sock";
  }
  for (const std::string& path : {user_socket, std::string(system_socket)}) {
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) return "ipc://" + path;
  }
  return wire::kDefaultTcpEndpoint;
}

}  // namespace stallwatch::agent
