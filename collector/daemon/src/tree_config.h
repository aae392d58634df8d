// SPDX-License-Identifier: MIT
#pragma once

// The collector tree's settings (README "Multi-node jobs", docs/design.md
// "Collector tree"): `[upstream]` makes this daemon a node that reports its
// ranks to a head, `[tree]` makes it a head that takes nodes' reports. A
// daemon may be both (a nested head).

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
  std::string node;            // this node's name; empty: the host name
  std::string advertise_http;  // this node's API for the head; empty: [http] listen
  int upstream_hwm = 64;       // report frames queued at most
  // [tree]
  std::vector<std::string> listen;            // CURVE endpoints for nodes' reports
  std::vector<std::string> plaintext_listen;  // plaintext ones: local unless insecure
};

// Applies the [upstream] / [tree] table. Returns "" or the error.
std::string apply_upstream(const toml::value& table, TreeConfig& tree);
std::string apply_tree(const toml::value& table, TreeConfig& tree);

// Cross-field checks; `insecure` is insecure_plaintext_remote. Returns "" or
// the error.
std::string validate_tree(const TreeConfig& tree, bool insecure);

}  // namespace stallwatch::collector
