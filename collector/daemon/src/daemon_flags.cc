// SPDX-License-Identifier: MIT
#include "daemon_flags.h"

#include <string_view>

namespace stallwatch::collector {

const char* daemon_usage() {
  return "usage: stallwatchd [--config FILE] [--ingest ENDPOINT]... [--curve ENDPOINT]...\n"
         "                   [--allow-list FILE] [--insecure-plaintext-remote] [--state-dir DIR]\n"
         "                   [--upstream ENDPOINT] [--upstream-key KEY | --upstream-key-file "
         "FILE]\n"
         "                   [--node NAME] [--tree-listen ENDPOINT]... [--tree-plaintext "
         "ENDPOINT]...\n"
         "                   [--http HOST:PORT] [--journal DIR] [--log-level LEVEL]\n"
         "                   [--help] [--version]\n"
         "       stallwatchd keygen [--state-dir DIR]   print the collector's public key\n"
         "       stallwatchd keygen --agent FILE        make an agent key pair (FILE, FILE.pub)\n"
         "\n"
         "  --config FILE      TOML configuration (see systemd/stallwatchd.toml)\n"
         "  --ingest ENDPOINT  plaintext ZeroMQ endpoint for local agents; repeatable.\n"
         "                     Default: tcp://127.0.0.1:5557 and the per-user ipc socket\n"
         "  --curve ENDPOINT   CURVE-secured endpoint for agents on other hosts, e.g.\n"
         "                     tcp://0.0.0.0:5558; repeatable\n"
         "  --allow-list FILE  admit on CURVE endpoints only these agents' public keys\n"
         "  --insecure-plaintext-remote\n"
         "                     allow a plaintext --ingest endpoint other hosts can reach\n"
         "  --state-dir DIR    where the collector's key pair lives (default\n"
         "                     $STATE_DIRECTORY, else ~/.local/state/stallwatch)\n"
         "  --upstream ENDPOINT\n"
         "                     report this node's ranks to a head, e.g. tcp://head:5560\n"
         "  --upstream-key KEY, --upstream-key-file FILE\n"
         "                     the head's public key (CURVE; required off this host)\n"
         "  --node NAME        this node's name at the head (default: the host name)\n"
         "  --tree-listen ENDPOINT\n"
         "                     take nodes' reports on this CURVE endpoint (be a head); repeatable\n"
         "  --tree-plaintext ENDPOINT\n"
         "                     take nodes' reports on this local plaintext endpoint; repeatable\n"
         "  --http HOST:PORT   dashboard and API address (default 127.0.0.1:8787)\n"
         "  --insecure-http-without-token\n"
         "                     allow --http on an address other hosts can reach without a\n"
         "                     token ([http] token_file)\n"
         "  --journal DIR      keep received batches on disk, replayable later\n"
         "  --log-level LEVEL  trace, debug, info, warn, error or off (default info)\n"
         "  --help             print this text and exit\n"
         "  --version          print the version and exit\n";
}

std::string parse_daemon_flags(int argc, const char* const* argv, DaemonFlags& flags) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool has_inline_value = false;
    if (arg.rfind("--", 0) == 0) {
      if (auto eq = arg.find('='); eq != std::string_view::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline_value = true;
      }
    }
    auto take_value = [&](std::string& out) -> std::string {
      if (has_inline_value) {
        out = std::string(value);
      } else if (i + 1 < argc) {
        out = argv[++i];
      } else {
        return std::string(arg) + ": missing value";
      }
      if (out.empty()) return std::string(arg) + ": empty value";
      return {};
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      flags.help = true;
    } else if (arg == "--version") {
      flags.version = true;
    } else if (arg == "--config" || arg == "-c") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.config_path = v;
    } else if (arg == "--ingest") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.ingest_endpoints.push_back(v);
    } else if (arg == "--curve") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.curve_endpoints.push_back(v);
    } else if (arg == "--allow-list") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.allow_list = v;
    } else if (arg == "--state-dir") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.state_dir = v;
    } else if (arg == "--insecure-plaintext-remote") {
      flags.insecure_plaintext_remote = true;
    } else if (arg == "--insecure-http-without-token") {
      flags.insecure_http_without_token = true;
    } else if (arg == "--http") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.http = v;
    } else if (arg == "--upstream") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.upstream = v;
    } else if (arg == "--upstream-key") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.upstream_key = v;
    } else if (arg == "--upstream-key-file") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.upstream_key_file = v;
    } else if (arg == "--node") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.node = v;
    } else if (arg == "--tree-listen") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.tree_listen.push_back(v);
    } else if (arg == "--tree-plaintext") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.tree_plaintext.push_back(v);
    } else if (arg == "--journal") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.journal_dir = v;
    } else if (arg == "--log-level") {
      if (auto err = take_value(v); !err.empty()) return err;
      flags.log_level = v;
    } else {
      return "unknown argument '" + std::string(argv[i]) + "' (see --help)";
    }
  }
  return {};
}

std::string resolve_daemon_config(const DaemonFlags& flags, DaemonConfig& config) {
  config = default_daemon_config();
  if (flags.config_path) {
    if (auto err = load_config_file(*flags.config_path, config); !err.empty()) return err;
  }
  if (!flags.ingest_endpoints.empty()) config.ingest_endpoints = flags.ingest_endpoints;
  if (!flags.curve_endpoints.empty()) config.curve_endpoints = flags.curve_endpoints;
  if (flags.allow_list) config.allow_list_path = flags.allow_list;
  if (flags.state_dir) config.state_dir = *flags.state_dir;
  if (flags.insecure_plaintext_remote) config.insecure_plaintext_remote = true;
  if (flags.insecure_http_without_token) config.insecure_http_without_token = true;
  if (flags.http && !parse_host_port(*flags.http, config.http_host, config.http_port)) {
    return "--http: expected HOST:PORT, got '" + *flags.http + "'";
  }
  if (flags.upstream) config.tree.upstream = *flags.upstream;
  if (flags.upstream_key) {
    config.tree.upstream_server_key = *flags.upstream_key;
    config.tree.upstream_server_key_file.clear();
  }
  if (flags.upstream_key_file) {
    config.tree.upstream_server_key_file = *flags.upstream_key_file;
    config.tree.upstream_server_key.clear();
  }
  if (flags.node) config.tree.node = *flags.node;
  if (!flags.tree_listen.empty()) config.tree.listen = flags.tree_listen;
  if (!flags.tree_plaintext.empty()) config.tree.plaintext_listen = flags.tree_plaintext;
  if (flags.journal_dir) config.journal_dir = flags.journal_dir;
  if (flags.log_level) {
    static constexpr std::string_view kLevels[] = {"trace", "debug", "info",
                                                   "warn",  "error", "off"};
    bool ok = false;
    for (auto l : kLevels)
      ok = ok || l == *flags.log_level;
    if (!ok) return "--log-level: expected trace, debug, info, warn, error or off";
    config.log_level = *flags.log_level;
  }
  return validate(config);
}

}  // namespace stallwatch::collector
