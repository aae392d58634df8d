// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as stallwatchd's TOML configuration file,
// alert rules ([[alerts.rules]]) and class rules ([classes]) included:
// apply_toml() over the defaults, then validate(). Neither may throw or
// crash; on top, the target aborts when a file that apply_toml() accepted
// gives a configuration that loading the same text again does not
// reproduce (parsing is a function of the text).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "daemon_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stallwatch::collector;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  DaemonConfig config = default_daemon_config();
  const std::string error = apply_toml(text, "fuzz.toml", config);
  if (!error.empty()) return 0;
  const std::string invalid = validate(config);
  DaemonConfig again = default_daemon_config();
  if (!apply_toml(text, "fuzz.toml", again).empty()) std::abort();
  if (validate(again) != invalid) std::abort();
  return 0;
}
