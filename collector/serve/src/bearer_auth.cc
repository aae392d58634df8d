// SPDX-License-Identifier: MIT
#include "bearer_auth.h"

#include <cctype>

namespace stallwatch::collector {

bool constant_time_equal(std::string_view candidate, std::string_view secret) {
  unsigned diff = candidate.size() == secret.size() ? 0u : 1u;
  for (std::size_t i = 0; i < secret.size(); ++i) {
    const auto c = static_cast<unsigned char>(i < candidate.size() ? candidate[i] : 0);
    diff |= c ^ static_cast<unsigned char>(secret[i]);
  }
  return diff == 0;
}

bool BearerAuth::allows(std::string_view authorization, const std::string* query_token) const {
  if (!enabled()) return true;
  bool ok = false;
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() > kScheme.size()) {
    bool scheme = true;
    for (std::size_t i = 0; i < kScheme.size(); ++i) {
      scheme = scheme && std::tolower(static_cast<unsigned char>(authorization[i])) == kScheme[i];
    }
    std::string_view rest = authorization.substr(kScheme.size());
    if (scheme && rest.front() == ' ') {
      while (!rest.empty() && rest.front() == ' ')
        rest.remove_prefix(1);
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t'))
        rest.remove_suffix(1);
      ok = constant_time_equal(rest, token_);
    }
  }
  if (query_token != nullptr) ok = constant_time_equal(*query_token, token_) || ok;
  return ok;
}

}  // namespace stallwatch::collector
