// SPDX-License-Identifier: MIT
#include "keygen_command.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "keys/curve_key_pair.h"
#include "keys/key_files.h"
#include "keys/state_dir.h"

namespace stallwatch::collector {

int keygen_main(int argc, const char* const* argv) {
  std::string state_dir;
  std::string agent_file;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--state-dir" || arg == "--agent") && i + 1 < argc) {
      (arg == "--agent" ? agent_file : state_dir) = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: stallwatchd keygen [--state-dir DIR]\n"
                   "       stallwatchd keygen --agent FILE\n");
      return 2;
    }
  }
  std::string error;
  if (!agent_file.empty()) {
    auto pair = generate_key_pair(error);
    if (pair) error = write_key_pair(*pair, agent_file, agent_file + ".pub");
    if (!error.empty()) {
      std::fprintf(stderr, "stallwatchd keygen: %s\n", error.c_str());
      return 1;
    }
    std::printf("%s\n", pair->public_key.c_str());
    std::fprintf(stderr,
                 "wrote %s (secret, 0600) and %s.pub; add the key above to the allow-list\n",
                 agent_file.c_str(), agent_file.c_str());
    return 0;
  }
  if (state_dir.empty()) state_dir = default_state_dir();
  bool created = false;
  auto pair = load_or_create_key_pair(state_dir, created, error);
  if (!pair) {
    std::fprintf(stderr, "stallwatchd keygen: %s\n", error.c_str());
    return 1;
  }
  std::printf("%s\n", pair->public_key.c_str());
  std::fprintf(stderr, "%s %s/%s; give agents the key above (STALLWATCH_COLLECTOR_KEY)\n",
               created ? "created" : "read", state_dir.c_str(), kSecretKeyFileName);
  return 0;
}

}  // namespace stallwatch::collector
