#include "http_url.h"

#include <charconv>

namespace stallwatch::collector {

HttpUrl parse_http_url(std::string_view url) {
  HttpUrl out;
  constexpr std::string_view kScheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    out.error = "https is not supported; use http:// (e.g. through a TLS-terminating proxy)";
    return out;
  }
  if (url.rfind(kScheme, 0) != 0) {
    out.error = "'" + std::string(url) + "' is not an http:// URL";
    return out;
  }
  std::string_view rest = url.substr(kScheme.size());
  const auto slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    out.target = std::string(rest.substr(slash));
    if (out.target.front() == '?') out.target.insert(out.target.begin(), '/');
  }
  if (authority.find('@') != std::string_view::npos) {
    out.error = "user:password@ in the URL is not supported; use headers = { Authorization = ... }";
    return out;
  }
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      out.error = "unclosed '[' in '" + std::string(url) + "'";
      return out;
    }
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') {
        out.error = "expected ':' after ']' in '" + std::string(url) + "'";
        return out;
      }
      port = authority.substr(close + 2);
    }
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    out.error = "no host in '" + std::string(url) + "'";
    return out;
  }
  out.host = std::string(host);
  if (!port.empty()) {
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || ptr != port.data() + port.size() || value == 0 || value > 65535) {
      out.error = "bad port in '" + std::string(url) + "'";
      return out;
    }
    out.port = std::string(port);
  }
  return out;
}

std::string join_url_path(std::string_view base_target, std::string_view path) {
  std::string out(base_target);
  while (!out.empty() && out.back() == '/')
    out.pop_back();
  out.append(path);
  return out;
}

}  // namespace stallwatch::collector
