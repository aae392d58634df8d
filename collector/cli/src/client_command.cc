// SPDX-License-Identifier: MIT
#include "client_command.h"

#include <cstdio>
#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include "replay/replay_command.h"
#include "tui/tui_commands.h"

namespace stallwatch::collector {

int client_main(int argc, char** argv) {
  const std::string_view command = argc >= 2 ? argv[1] : "";
  // Subcommands see argv[0] = their own name.
  const int sub_argc = argc - 1;
  char** sub_argv = argv + 1;
  if (command == "top") return tui::run_top(sub_argc, sub_argv);
  if (command == "status") return tui::run_status(sub_argc, sub_argv);
  if (command == "replay") {
    std::vector<std::string_view> args(sub_argv + 1, sub_argv + sub_argc);
    return run_replay(args, std::cout, std::cerr);
  }
  std::fprintf(stderr,
               "stallwatch-client: unknown command '%.*s' (it runs `stallwatch top`, `status` and "
               "`replay`; see `stallwatch --help`)\n",
               static_cast<int>(command.size()), command.data());
  return 2;
}

}  // namespace stallwatch::collector
