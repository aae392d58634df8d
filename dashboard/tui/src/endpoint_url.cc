#include "endpoint_url.h"

#include <algorithm>

namespace stallwatch::tui {
namespace {

bool valid_port(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const int value = std::stoi(std::string(port));
  return value > 0 && value <= 65535;
}

UrlResult fail(std::string_view text, std::string_view why) {
  return {std::nullopt, "bad URL '" + std::string(text) + "': " + std::string(why)};
}

}  // namespace

std::string EndpointUrl::host_header() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + port;
}

UrlResult parse_endpoint_url(std::string_view text) {
  constexpr std::string_view kScheme = "http://";
  if (text.substr(0, kScheme.size()) != kScheme) {
    if (text.find("://") != std::string_view::npos) {
      return fail(text, "only http:// is supported (use a proxy or an SSH tunnel for TLS)");
    }
    return fail(text, "expected http://HOST[:PORT]");
  }
  std::string_view rest = text.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (path.find_first_of("?#") != std::string_view::npos)
    return fail(text, "no query or fragment allowed");
  if (authority.find('@') != std::string_view::npos)
    return fail(text, "no user info allowed; use --token");

  EndpointUrl url;
  std::string_view port = "80";
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail(text, "unclosed '[' in the host");
    url.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return fail(text, "expected ':' after ']'");
      port = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) return fail(text, "no host");
  if (!valid_port(port)) return fail(text, "port must be a number in 1-65535");
  url.port = std::string(port);
  while (!path.empty() && path.back() == '/')
    path.remove_suffix(1);
  url.prefix = std::string(path);
  url.text = std::string(text.substr(0, kScheme.size())) + std::string(authority) + url.prefix;
  return {std::move(url), {}};
}

std::string encode_path_segment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(segment.size());
  for (const char ch : segment) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (alnum || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace stallwatch::tui
