// SPDX-License-Identifier: MIT
#include <exception>
#include <iostream>

#include "cli_options.h"
#include "top_app.h"
#include "top_once.h"
#include "tui/tui_commands.h"

namespace stallwatch::tui {

int run_top(int argc, char** argv) {
  try {
    const auto parsed = parse_top_options(argc, argv, EnvDefaults::from_process());
    if (parsed.help) {
      std::cout << top_usage();
      return 0;
    }
    if (!parsed.options) {
      std::cerr << "stallwatch top: " << parsed.error
                << "\nRun `stallwatch top --help` for the options.\n";
      return 2;
    }
    if (parsed.options->once) return run_top_once(*parsed.options, std::cout, std::cerr);
    return run_top_live(*parsed.options, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "stallwatch top: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace stallwatch::tui
