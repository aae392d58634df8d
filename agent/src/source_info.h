#pragma once

#include <cstdint>
#include <string>

#include "agent_config.h"

namespace stallwatch::agent {

// Who is sending: the wire Source of every batch of this process (DESIGN §2).
struct SourceInfo {
  std::string job;
  std::int32_t rank = 0;
  std::string host;
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  std::string agent_version;
  std::int64_t start_ns = 0;
  ProcessRole role = ProcessRole::kMain;
  DeviceSource device_source = DeviceSource::kNone;
};

}  // namespace stallwatch::agent
