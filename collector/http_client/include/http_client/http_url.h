// SPDX-License-Identifier: MIT
#pragma once

// An http:// or https:// URL as libcurl's URL parser (curl_url) reads it:
// the one URL parser of the alert sinks and the terminal dashboard. Pure
// value type; parse_http_url() is callable from any thread.

#include <string>
#include <string_view>

namespace stallwatch::collector {

struct HttpUrl {
  std::string scheme;      // "http" or "https"
  std::string host;        // IPv6 literals keep their brackets: "[::1]"
  int port = 0;            // as given, else the scheme's default (80, 443)
  std::string path = "/";  // percent-encoded as given, never empty
  std::string query;       // without the '?'; empty when none
  std::string error;       // non-empty: not a usable URL, and why

  bool ok() const { return error.empty(); }
  bool https() const { return scheme == "https"; }
  // scheme://host:port, without path or query.
  std::string origin() const;
  // The whole URL, normalized: origin + path [+ '?' + query].
  std::string text() const;
  // origin + this URL's path without its trailing slashes + `suffix`
  // ("/api/v1/jobs"); the query is dropped.
  std::string with_path(std::string_view suffix) const;
};

// Accepts http:// and https:// URLs with a host. Refuses user:password@
// (credentials belong in headers or a token) and fragments.
HttpUrl parse_http_url(std::string_view text);

}  // namespace stallwatch::collector
