// SPDX-License-Identifier: MIT
#pragma once

// One blocking HTTP(S) GET to the collector's API through the shared HTTP
// client (http_client/http_client.h), bounded by a deadline: https verifies
// the daemon's certificate (against --ca-file when given). Each call opens
// its own connection (the TUI makes a few requests per second at most).
// Errors are values: a transport failure comes back as status 0 and a
// sentence for the user.
//
// Thread-safe: calls share nothing.

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "endpoint_url.h"

namespace stallwatch::tui {

struct HttpResult {
  int status = 0;  // HTTP status; 0 when no answer came
  std::string body;
  std::string error;  // why no answer came ("connection refused"), when status == 0

  bool answered() const { return status != 0; }
  bool ok() const { return status == 200; }
};

struct FetchOptions {
  std::string token;    // bearer token, sent when not empty
  std::string ca_file;  // PEM CA bundle for https; empty: the system's
  std::chrono::milliseconds timeout{3000};
  std::size_t body_limit = std::size_t{64} << 20;
};

HttpResult http_fetch(const EndpointUrl& url, std::string_view path, const FetchOptions& options);

// A one-line description of a failed request for the user: the transport
// error, or the status with the API's error text.
std::string describe_failure(const HttpResult& result);

}  // namespace stallwatch::tui
