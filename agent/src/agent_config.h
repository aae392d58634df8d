// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stallwatch/source_info.h"

namespace stallwatch::agent {

// Everything sw_config carries (keys documented in stallwatch.h). A plain
// value: sw_start() copies it. Parsing never throws except std::bad_alloc.
struct AgentConfig {
  std::string collector;  // empty: resolved by default_collector_endpoint() at start
  std::string job;
  std::int32_t rank = 0;
  bool enable = true;
  ProcessRole role = ProcessRole::kMain;
  DeviceSource device_source = DeviceSource::kNone;
  std::uint32_t flush_interval_ms = 20;
  std::uint32_t heartbeat_ms = 1000;
  std::uint32_t buffer_events = 16384;
  std::uint32_t batch_events = 8192;
  std::uint32_t send_hwm = 64;
  std::uint32_t linger_ms = 250;
  // CURVE towards a collector on another host (docs/design.md, "CURVE"): the
  // collector's public key (Z85) or a file holding it, and this agent's
  // secret key file when the collector has an allow-list.
  std::string collector_key;
  std::string collector_key_file;
  std::string agent_key_file;
  // Sample /proc/self/io every heartbeat_ms (default on with STALLWATCH_POSIX=1).
  bool proc_io = false;

  // Defaults, then the environment: identity as docs/design.md says
  // (STALLWATCH_JOB, TORCHELASTIC_RUN_ID, SLURM_JOB_ID, else <host>-<pid>;
  // STALLWATCH_RANK, RANK, else 0), and STALLWATCH_<KEY> for every other key
  // (e.g. STALLWATCH_COLLECTOR, STALLWATCH_FLUSH_INTERVAL_MS). A malformed
  // variable is ignored with one diagnostic line.
  static AgentConfig from_environment();

  // Sets one key from its string form: SW_OK, SW_ERR_UNKNOWN_KEY or
  // SW_ERR_BAD_VALUE (the config is unchanged on error).
  int set(std::string_view key, std::string_view value);
};

// The ipc socket of stallwatchd running as the system service: the unit
// (systemd/stallwatchd.service.in) runs it with XDG_RUNTIME_DIR=/run and
// RuntimeDirectory=stallwatch.
inline constexpr const char* kSystemIngestSocket = "/run/stallwatch/ingest.sock";

// The endpoint used when none is configured, the first that exists of: the
// ipc socket of the user's own stallwatchd ($XDG_RUNTIME_DIR/stallwatch/
// ingest.sock, or /tmp/stallwatch-$UID/ingest.sock), the system service's
// (`system_socket`); else tcp://127.0.0.1:5557.
std::string default_collector_endpoint(const char* system_socket = kSystemIngestSocket);

// gethostname(), or "unknown-host".
std::string host_name();

}  // namespace stallwatch::agent
