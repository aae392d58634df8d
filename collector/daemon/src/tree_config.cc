// SPDX-License-Identifier: MIT
#include "tree_config.h"

#include "config/toml_fields.h"
#include "ingest/endpoint_scope.h"
#include "token_file.h"

namespace stallwatch::collector {
namespace {

bool known_transport(const std::string& e) {
  return e.rfind("tcp://", 0) == 0 || e.rfind("ipc://", 0) == 0;
}

}  // namespace

std::string advertised_api(const std::string& advertise, const std::string& host,
                           std::uint16_t port, bool tls) {
  if (advertise.find("://") != std::string::npos) return advertise;
  const std::string scheme = tls ? "https://" : "http://";
  if (!advertise.empty()) return scheme + advertise;
  return scheme + (host.find(':') == std::string::npos ? host : "[" + host + "]") + ":" +
         std::to_string(port);
}

std::string apply_upstream(const toml::value& t, TreeConfig& c) {
  TomlFields s(t, "upstream", {});
  if (auto err = s.allow_only(
          {"endpoint", "server_key", "server_key_file", "node", "advertise_http", "send_hwm"});
      !err.empty()) {
    return err;
  }
  if (s.has("server_key") && s.has("server_key_file")) {
    return s.error("server_key_file", "set either server_key or server_key_file, not both");
  }
  for (auto [key, out] :
       {std::pair{"endpoint", &c.upstream}, std::pair{"server_key", &c.upstream_server_key},
        std::pair{"server_key_file", &c.upstream_server_key_file}, std::pair{"node", &c.node},
        std::pair{"advertise_http", &c.advertise_http}}) {
    if (!s.has(key)) continue;
    if (auto err = s.string(key, *out); !err.empty()) return err;
    if (out->empty()) return s.error(key, "must not be empty");
  }
  if (s.has("send_hwm")) {
    std::int64_t hwm = 0;
    if (auto err = s.integer("send_hwm", hwm, 1, 100000); !err.empty()) return err;
    c.upstream_hwm = static_cast<int>(hwm);
  }
  return {};
}

std::string apply_tree(const toml::value& t, TreeConfig& c) {
  TomlFields s(t, "tree", {});
  if (auto err = s.allow_only(
          {"listen", "plaintext_listen", "node_ca_file", "node_token", "node_token_file"});
      !err.empty()) {
    return err;
  }
  if (s.has("node_token") && s.has("node_token_file")) {
    return s.error("node_token_file", "set either node_token or node_token_file, not both");
  }
  for (auto [key, out] :
       {std::pair{"node_ca_file", &c.node_ca_file}, std::pair{"node_token", &c.node_token}}) {
    if (!s.has(key)) continue;
    if (auto err = s.string(key, *out); !err.empty()) return err;
    if (out->empty()) return s.error(key, "must not be empty");
  }
  if (s.has("node_token_file")) {
    std::string path;
    if (auto err = s.string("node_token_file", path); !err.empty()) return err;
    std::string why;
    if (!read_token_file(path, c.node_token, why)) {
      return s.error("node_token_file", "cannot read '" + path + "': " + why);
    }
    if (c.node_token.empty()) return s.error("node_token_file", "'" + path + "' is empty");
  }
  if (s.has("listen")) {
    if (auto err = s.string_list("listen", c.listen); !err.empty()) return err;
  }
  if (s.has("plaintext_listen")) {
    if (auto err = s.string_list("plaintext_listen", c.plaintext_listen); !err.empty()) return err;
  }
  return {};
}

std::string validate_tree(const TreeConfig& c, bool insecure) {
  for (const auto& e : c.listen) {
    if (e.rfind("tcp://", 0) != 0) return "tree endpoint '" + e + "': expected tcp://HOST:PORT";
  }
  for (const auto& e : c.plaintext_listen) {
    if (!known_transport(e)) {
      return "tree endpoint '" + e + "': expected tcp://HOST:PORT or ipc://PATH";
    }
    if (!insecure && !is_local_endpoint(e)) {
      return "tree endpoint '" + e +
             "' can be reached from other hosts but takes plaintext: make it a CURVE endpoint "
             "([tree] listen, --tree-listen) or, on a network you trust, say so with "
             "--insecure-plaintext-remote";
    }
  }
  if (const auto scheme = c.advertise_http.find("://"); scheme != std::string::npos) {
    const std::string name = c.advertise_http.substr(0, scheme);
    if (name != "http" && name != "https") {
      return "upstream.advertise_http '" + c.advertise_http +
             "': expected HOST:PORT, http://HOST:PORT or https://HOST:PORT";
    }
  }
  if (c.upstream.empty()) {
    if (!c.upstream_server_key.empty() || !c.upstream_server_key_file.empty()) {
      return "upstream: a server key is set, but no upstream endpoint";
    }
    return {};
  }
  if (!known_transport(c.upstream)) {
    return "upstream '" + c.upstream + "': expected tcp://HOST:PORT or ipc://PATH";
  }
  const bool curve = !c.upstream_server_key.empty() || !c.upstream_server_key_file.empty();
  if (!curve && !insecure && !is_local_endpoint(c.upstream)) {
    return "upstream '" + c.upstream +
           "' is on another host but no server key is set: reports would travel unencrypted "
           "to whoever answers. Give the head's public key ([upstream] server_key or "
           "server_key_file, --upstream-key) or, on a network you trust, say so with "
           "--insecure-plaintext-remote";
  }
  return {};
}

}  // namespace stallwatch::collector
