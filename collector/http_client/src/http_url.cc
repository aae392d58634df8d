// SPDX-License-Identifier: MIT
#include "http_client/http_url.h"

#include <curl/curl.h>

#include <charconv>
#include <memory>

namespace stallwatch::collector {
namespace {

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

// One part of the parsed URL; false when the URL has none.
bool get_part(CURLU* url, CURLUPart part, unsigned flags, std::string& out) {
  char* value = nullptr;
  if (curl_url_get(url, part, &value, flags) != CURLUE_OK || value == nullptr) return false;
  out = value;
  curl_free(value);
  return true;
}

HttpUrl fail(std::string_view text, std::string_view why) {
  HttpUrl out;
  out.error = "bad URL '" + std::string(text) + "': " + std::string(why);
  return out;
}

}  // namespace

std::string HttpUrl::origin() const {
  return scheme + "://" + host + ":" + std::to_string(port);
}

std::string HttpUrl::text() const {
  return origin() + path + (query.empty() ? "" : "?" + query);
}

std::string HttpUrl::with_path(std::string_view suffix) const {
  std::string base = path;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return origin() + base + std::string(suffix);
}

HttpUrl parse_http_url(std::string_view text) {
  if (text.find("://") == std::string_view::npos)
    return fail(text, "expected http://HOST[:PORT][/PATH] or https://...");
  UrlHandle url(curl_url());
  if (!url) return fail(text, "out of memory");
  const std::string copy(text);
  if (const CURLUcode rc = curl_url_set(url.get(), CURLUPART_URL, copy.c_str(), 0);
      rc != CURLUE_OK) {
    return fail(text, curl_url_strerror(rc));
  }
  HttpUrl out;
  get_part(url.get(), CURLUPART_SCHEME, 0, out.scheme);
  if (out.scheme != "http" && out.scheme != "https")
    return fail(text, "only http:// and https:// are supported");
  std::string ignored;
  if (get_part(url.get(), CURLUPART_USER, 0, ignored) ||
      get_part(url.get(), CURLUPART_PASSWORD, 0, ignored)) {
    return fail(text, "user:password@ is not allowed; send credentials in a header or token");
  }
  if (get_part(url.get(), CURLUPART_FRAGMENT, 0, ignored))
    return fail(text, "no #fragment allowed");
  if (!get_part(url.get(), CURLUPART_HOST, 0, out.host) || out.host.empty())
    return fail(text, "no host");
  std::string port;
  get_part(url.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT, port);
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (ec != std::errc() || end != port.data() + port.size() || out.port < 1 || out.port > 65535)
    return fail(text, "port must be a number in 1-65535");
  if (!get_part(url.get(), CURLUPART_PATH, 0, out.path) || out.path.empty()) out.path = "/";
  get_part(url.get(), CURLUPART_QUERY, 0, out.query);
  return out;
}

}  // namespace stallwatch::collector
