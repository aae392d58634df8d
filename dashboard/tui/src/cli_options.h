// SPDX-License-Identifier: MIT
#pragma once

// Command-line options of `stallwatch top` and `stallwatch status`, with the
// environment defaults (STALLWATCH_URL, STALLWATCH_TOKEN). Pure: the
// environment comes in as a value so tests need not touch the process's.
// Parsed by CLI11, like every command of the product: `--flag VALUE` or
// `--flag=VALUE`, the same --help layout and error wording everywhere.

#include <optional>
#include <string>
#include <string_view>

#include "endpoint_url.h"

namespace stallwatch::tui {

struct EnvDefaults {
  std::optional<std::string> url;    // STALLWATCH_URL
  std::optional<std::string> token;  // STALLWATCH_TOKEN

  static EnvDefaults from_process();
};

struct TopOptions {
  EndpointUrl url;
  std::string token;
  std::string ca_file;  // --ca-file: CA bundle for an https:// collector
  bool once = false;
  std::string window;  // empty: the collector's verdict window
  std::string job;     // empty: the first active job
  int width = 0;       // 0: the terminal's
};

struct StatusOptions {
  EndpointUrl url;
  std::string token;
  std::string ca_file;  // --ca-file: CA bundle for an https:// collector
  bool json = false;
};

template <typename T>
struct ParsedOptions {
  std::optional<T> options;
  bool help = false;  // --help: print the usage, exit 0
  std::string error;  // a usage error: print it and the usage, exit 2
};

// argv[0] is the subcommand name ("top", "status").
ParsedOptions<TopOptions> parse_top_options(int argc, const char* const* argv,
                                            const EnvDefaults& env);
ParsedOptions<StatusOptions> parse_status_options(int argc, const char* const* argv,
                                                  const EnvDefaults& env);

// The --help text.
std::string top_usage();
std::string status_usage();

}  // namespace stallwatch::tui
