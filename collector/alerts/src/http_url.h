#pragma once

#include <string>
#include <string_view>

namespace stallwatch::collector {

// An `http://host[:port][/path]` URL split for the HTTP client. Only plain
// HTTP: put a TLS-terminating proxy (or a local Alertmanager) in front of
// HTTPS receivers.
struct HttpUrl {
  std::string host;  // without brackets for IPv6 literals
  std::string port = "80";
  std::string target = "/";  // path and query, never empty
  std::string error;         // non-empty: not a usable URL, and why
};

HttpUrl parse_http_url(std::string_view url);

// `base` (an http URL without a trailing slash) joined with `path` ("/api/v2/alerts").
std::string join_url_path(std::string_view base_target, std::string_view path);

}  // namespace stallwatch::collector
