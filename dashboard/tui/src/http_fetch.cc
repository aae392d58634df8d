// SPDX-License-Identifier: MIT
#include "http_fetch.h"

#include "api_parse.h"
#include "http_client/http_client.h"
#include "stallwatch/version.h"

namespace stallwatch::tui {

HttpResult http_fetch(const EndpointUrl& url, std::string_view path, const FetchOptions& options) {
  collector::HttpRequest request;
  request.url = url.url(path);
  request.headers.emplace_back("Accept", "application/json");
  if (!options.token.empty())
    request.headers.emplace_back("Authorization", "Bearer " + options.token);
  request.tls.ca_file = options.ca_file;
  request.connect_timeout = options.timeout;
  request.timeout = options.timeout;
  request.body_limit = options.body_limit;
  request.user_agent = std::string("stallwatch-top/") + kVersion;
  collector::HttpResponse response = collector::http_request(request);
  HttpResult result;
  result.status = response.status;
  result.body = std::move(response.body);
  result.error = std::move(response.error);
  if (result.status == 0 && result.error.empty()) result.error = "no answer";
  return result;
}

std::string describe_failure(const HttpResult& result) {
  if (!result.answered()) return result.error;
  std::string text = "HTTP " + std::to_string(result.status);
  const std::string api_error = api_error_text(result.body);
  if (!api_error.empty()) text += ": " + api_error;
  return text;
}

}  // namespace stallwatch::tui
