// SPDX-License-Identifier: MIT
#pragma once

// The collector tree's settings (README "Multi-node jobs", docs/design.md
// "Collector tree"): `[upstream]` makes this daemon a node that reports its
// ranks to a head, `[tree]` makes it a head that takes nodes' reports. A
// daemon may be both (a nested head).

#include <cstdint>
#include <string>
#include <string_view>
#include <toml.hpp>
#include <vector>

namespace stallwatch::collector {

struct TreeConfig {
  // [upstream]
  std::string upstream;             // tcp://HEAD:PORT or ipc://PATH; empty: no head
  std::string upstream_server_key;  // the head's public key (Z85): CURVE
  std::string upstream_server_key_file;
  std::string node;  // this node's name; empty: the host name
  // This node's API for the head: HOST:PORT (the scheme follows [http]
  // tls_cert) or http(s)://HOST:PORT; empty: [http] listen.
  std::string advertise_http;
  int upstream_hwm = 64;  // report frames queued at most
  // [tree]
  std::vector<std::string> listen;            // CURVE endpoints for nodes' reports
  std::vector<std::string> plaintext_listen;  // plaintext ones: local unless insecure
  // How the head fetches a remote rank's timeline from its node's API.
  std::string node_ca_file;  // PEM CAs that sign the nodes' certificates; empty: the system's
  std::string node_token;    // the nodes' bearer token; empty: [http] token
};

// Applies the [upstream] / [tree] table. Returns "" or the error.
std::string apply_upstream(const toml::value& table, TreeConfig& tree);
std::string apply_tree(const toml::value& table, TreeConfig& tree);

// The base URL a node reports for its API: `advertise` ([upstream]
// advertise_http) as given when it has a scheme, else with https:// when
// the node serves TLS, else http://; without it, the bound host and port.
std::string advertised_api(const std::string& advertise, const std::string& host,
                           std::uint16_t port, bool tls);

// Cross-field checks; `insecure` is insecure_plaintext_remote. Returns "" or
// the error.
std::string validate_tree(const TreeConfig& tree, bool insecure);

}  // namespace stallwatch::collector
