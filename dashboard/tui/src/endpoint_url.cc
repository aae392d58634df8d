// SPDX-License-Identifier: MIT
#include "endpoint_url.h"

#include "http_client/http_url.h"

namespace stallwatch::tui {
namespace {

UrlResult fail(std::string_view text, std::string_view why) {
  return {std::nullopt, "bad URL '" + std::string(text) + "': " + std::string(why)};
}

}  // namespace

std::string EndpointUrl::host_header() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + port;
}

std::string EndpointUrl::url(std::string_view path) const {
  return std::string(https ? "https://" : "http://") + host_header() + target(path);
}

UrlResult parse_endpoint_url(std::string_view text) {
  const collector::HttpUrl parsed = collector::parse_http_url(text);
  if (!parsed.ok()) {
    // The parser's message already names the URL.
    return {std::nullopt, parsed.error};
  }
  if (!parsed.query.empty()) return fail(text, "no query allowed");
  EndpointUrl url;
  url.https = parsed.https();
  url.host = parsed.host;
  if (url.host.size() >= 2 && url.host.front() == '[' && url.host.back() == ']')
    url.host = url.host.substr(1, url.host.size() - 2);
  url.port = std::to_string(parsed.port);
  std::string_view path = parsed.path;
  while (!path.empty() && path.back() == '/')
    path.remove_suffix(1);
  url.prefix = std::string(path);
  std::string_view shown = text;
  while (!shown.empty() && shown.back() == '/')
    shown.remove_suffix(1);
  url.text = std::string(shown);
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
