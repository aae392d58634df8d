// SPDX-License-Identifier: MIT
// libFuzzer target: the agent's reading of its settings. The input is lines
// of NAME=VALUE: each is tried as a key of sw_config (AgentConfig::set, the
// name lower-cased without a STALLWATCH_ prefix), then all are put in the
// environment and AgentConfig::from_environment() reads them, as sw_start()
// does in a training process. Sanitizers catch memory errors; on top, the
// target aborts when a refused set() changed the config, or when the
// environment gives a value outside the range set() enforces.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "agent_config.h"
#include "stallwatch/stallwatch.h"

namespace {

using stallwatch::agent::AgentConfig;

bool same(const AgentConfig& a, const AgentConfig& b) {
  return a.collector == b.collector && a.job == b.job && a.rank == b.rank && a.enable == b.enable &&
         a.role == b.role && a.device_source == b.device_source &&
         a.flush_interval_ms == b.flush_interval_ms && a.heartbeat_ms == b.heartbeat_ms &&
         a.buffer_events == b.buffer_events && a.batch_events == b.batch_events &&
         a.send_hwm == b.send_hwm && a.linger_ms == b.linger_ms &&
         a.collector_key == b.collector_key && a.collector_key_file == b.collector_key_file &&
         a.agent_key_file == b.agent_key_file && a.proc_io == b.proc_io;
}

std::vector<std::string> g_set_names;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const std::string& name : g_set_names)
    ::unsetenv(name.c_str());
  g_set_names.clear();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  AgentConfig config;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string name(line.substr(0, eq));
    const std::string value(line.substr(eq + 1));
    if (name.find('\0') != std::string::npos || value.find('\0') != std::string::npos) continue;
    std::string key = name.rfind("STALLWATCH_", 0) == 0 ? name.substr(11) : name;
    for (char& c : key)
      c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    const AgentConfig before = config;
    if (config.set(key, value) != SW_OK && !same(before, config)) std::abort();
    if (::setenv(name.c_str(), value.c_str(), 1) == 0) g_set_names.push_back(name);
  }
  const AgentConfig env = AgentConfig::from_environment();
  if (env.flush_interval_ms < 1 || env.flush_interval_ms > 50) std::abort();
  if (env.heartbeat_ms < 10 || env.heartbeat_ms > 1000) std::abort();
  return 0;
}
