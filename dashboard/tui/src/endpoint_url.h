// SPDX-License-Identifier: MIT
#pragma once

// The collector's base URL as the TUI uses it: `http[s]://HOST[:PORT][/PREFIX]`
// (a prefix when the API sits behind a reverse proxy), parsed by the shared
// URL parser (http_client/http_url.h). Pure value type.

#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::tui {

inline constexpr std::string_view kDefaultUrl = "http://127.0.0.1:8787";

struct EndpointUrl {
  bool https = false;
  std::string host;    // without brackets for IPv6 literals
  std::string port;    // "8787"
  std::string prefix;  // "" or "/path" without a trailing slash
  std::string text;    // as given, without a trailing slash: for messages

  // `path` starts with '/': prefix + path.
  std::string target(std::string_view path) const { return prefix + std::string(path); }
  // The whole URL of `path` (which starts with '/'), for the HTTP client.
  std::string url(std::string_view path) const;
  // The Host header value.
  std::string host_header() const;
};

struct UrlResult {
  std::optional<EndpointUrl> url;
  std::string error;
};

UrlResult parse_endpoint_url(std::string_view text);

// Percent-encodes one path segment (a job id) for /api/v1/jobs/{job}.
std::string encode_path_segment(std::string_view segment);

}  // namespace stallwatch::tui
