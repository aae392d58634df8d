// SPDX-License-Identifier: MIT
#pragma once

// Command line of stallwatchd:
//   stallwatchd [--config FILE] [--ingest ENDPOINT]... [--curve ENDPOINT]...
//               [--allow-list FILE] [--insecure-plaintext-remote] [--state-dir DIR]
//               [--upstream ENDPOINT] [--upstream-key KEY | --upstream-key-file FILE]
//               [--node NAME] [--tree-listen ENDPOINT]... [--tree-plaintext ENDPOINT]...
//               [--http HOST:PORT] [--journal DIR] [--log-level LEVEL] [--help] [--version]
// Precedence: defaults, then the config file, then flags.

#include <optional>
#include <string>
#include <vector>

#include "daemon_config.h"

namespace stallwatch::collector {

struct DaemonFlags {
  std::optional<std::string> config_path;
  std::vector<std::string> ingest_endpoints;
  std::vector<std::string> curve_endpoints;
  std::optional<std::string> allow_list;
  std::optional<std::string> state_dir;
  bool insecure_plaintext_remote = false;
  bool insecure_http_without_token = false;
  std::optional<std::string> http;
  std::optional<std::string> http_tls_cert;
  std::optional<std::string> http_tls_key;
  std::optional<std::string> upstream;
  std::optional<std::string> upstream_key;
  std::optional<std::string> upstream_key_file;
  std::optional<std::string> node;
  std::vector<std::string> tree_listen;
  std::vector<std::string> tree_plaintext;
  std::optional<std::string> journal_dir;
  std::optional<std::string> log_level;
  bool help = false;
  bool version = false;
};

// Parsed by CLI11 like every command of the product. Returns "" or a
// one-line error naming the flag; --help and --version set their fields.
std::string parse_daemon_flags(int argc, const char* const* argv, DaemonFlags& flags);

// Defaults + file + flags + validation. Returns "" or the error.
std::string resolve_daemon_config(const DaemonFlags& flags, DaemonConfig& config);

// The --help text.
std::string daemon_usage();

}  // namespace stallwatch::collector
