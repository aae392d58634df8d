// SPDX-License-Identifier: MIT
#include "daemon_flags.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string_view>

#include "stallwatch/version.h"

namespace stallwatch::collector {

namespace {

constexpr const char* kFooter =
    "Subcommands:\n"
    "  stallwatchd keygen [--state-dir DIR]   print the collector's public key\n"
    "  stallwatchd keygen --agent FILE        make an agent key pair (FILE, FILE.pub)\n"
    "Precedence: defaults, then the --config file, then these flags.";

// A value that must not be empty (CLI11 takes "--flag=" as an empty one).
const auto kNotEmpty = [](const std::string& v) -> std::string {
  return v.empty() ? "empty value" : "";
};

std::unique_ptr<CLI::App> daemon_app(DaemonFlags& f) {
  auto app = std::make_unique<CLI::App>(
      "stallwatch's collector: takes agents' events, keeps exact sliding-window metrics and "
      "serves the dashboard, API, /metrics and alerts.",
      "stallwatchd");
  app->set_version_flag("--version", std::string("stallwatchd ") + kVersion,
                        "print the version and exit");
  app->add_option("-c,--config", f.config_path, "TOML configuration (see systemd/stallwatchd.toml)")
      ->type_name("FILE")
      ->check(kNotEmpty);
  app->add_option("--ingest", f.ingest_endpoints,
                  "plaintext ZeroMQ endpoint for local agents; repeatable. Default: "
                  "tcp://127.0.0.1:5557 and the per-user ipc socket")
      ->type_name("ENDPOINT")
      ->check(kNotEmpty);
  app->add_option("--curve", f.curve_endpoints,
                  "CURVE-secured endpoint for agents on other hosts, e.g. tcp://0.0.0.0:5558; "
                  "repeatable")
      ->type_name("ENDPOINT")
      ->check(kNotEmpty);
  app->add_option("--allow-list", f.allow_list,
                  "admit on CURVE endpoints only these agents' public keys")
      ->type_name("FILE")
      ->check(kNotEmpty);
  app->add_flag("--insecure-plaintext-remote", f.insecure_plaintext_remote,
                "allow a plaintext --ingest endpoint other hosts can reach");
  app->add_option("--state-dir", f.state_dir,
                  "where the collector's key pair lives (default $STATE_DIRECTORY, else "
                  "~/.local/state/stallwatch)")
      ->type_name("DIR")
      ->check(kNotEmpty);
  app->add_option("--upstream", f.upstream,
                  "report this node's ranks to a head, e.g. tcp://head:5560")
      ->type_name("ENDPOINT")
      ->check(kNotEmpty);
  auto* key = app->add_option("--upstream-key", f.upstream_key,
                              "the head's public key (CURVE; required off this host)")
                  ->type_name("KEY")
                  ->check(kNotEmpty);
  app->add_option("--upstream-key-file", f.upstream_key_file, "the head's public key, from a file")
      ->type_name("FILE")
      ->check(kNotEmpty)
      ->excludes(key);
  app->add_option("--node", f.node, "this node's name at the head (default: the host name)")
      ->type_name("NAME")
      ->check(kNotEmpty);
  app->add_option("--tree-listen", f.tree_listen,
                  "take nodes' reports on this CURVE endpoint (be a head); repeatable")
      ->type_name("ENDPOINT")
      ->check(kNotEmpty);
  app->add_option("--tree-plaintext", f.tree_plaintext,
                  "take nodes' reports on this local plaintext endpoint; repeatable")
      ->type_name("ENDPOINT")
      ->check(kNotEmpty);
  app->add_option("--http", f.http, "dashboard and API address (default 127.0.0.1:8787)")
      ->type_name("HOST:PORT")
      ->check(kNotEmpty);
  app->add_option("--http-tls-cert", f.http_tls_cert,
                  "serve the dashboard and API over TLS with this PEM certificate chain")
      ->type_name("FILE")
      ->check(kNotEmpty);
  app->add_option("--http-tls-key", f.http_tls_key, "the PEM private key of --http-tls-cert")
      ->type_name("FILE")
      ->check(kNotEmpty);
  app->add_flag("--insecure-http-without-token", f.insecure_http_without_token,
                "allow --http on an address other hosts can reach without a token ([http] "
                "token_file)");
  app->add_option("--journal", f.journal_dir, "keep received batches on disk, replayable later")
      ->type_name("DIR")
      ->check(kNotEmpty);
  app->add_option("--log-level", f.log_level,
                  "trace, debug, info, warn, error or off (default info)")
      ->type_name("LEVEL")
      ->check(kNotEmpty);
  app->footer(kFooter);
  return app;
}

}  // namespace

std::string daemon_usage() {
  DaemonFlags flags;
  return daemon_app(flags)->help();
}

std::string parse_daemon_flags(int argc, const char* const* argv, DaemonFlags& flags) {
  const auto app = daemon_app(flags);
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    flags.help = true;
  } catch (const CLI::CallForVersion&) {
    flags.version = true;
  } catch (const CLI::ParseError& e) {
    return std::string(e.what()) + " (see --help)";
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
  if (flags.http_tls_cert) config.http_tls_cert = *flags.http_tls_cert;
  if (flags.http_tls_key) config.http_tls_key = *flags.http_tls_key;
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
