// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace stallwatch::collector {

// The optional bearer token of the HTTP API (docs/api.md, "Auth"). Compares in time
// that depends only on the lengths, never on where the strings differ.
// Immutable after construction; any thread.
class BearerAuth {
 public:
  explicit BearerAuth(std::string token) : token_(std::move(token)) {}

  bool enabled() const { return !token_.empty(); }

  // True when no token is configured, or `authorization` is
  // "Bearer <token>" (scheme case-insensitive), or `query_token` (the
  // `token` query parameter, null when absent) equals the token.
  bool allows(std::string_view authorization, const std::string* query_token) const;

 private:
  std::string token_;
};

bool constant_time_equal(std::string_view candidate, std::string_view secret);

}  // namespace stallwatch::collector
