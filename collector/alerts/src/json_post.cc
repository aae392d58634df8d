// SPDX-License-Identifier: MIT
#include "json_post.h"

namespace stallwatch::collector {

std::string post_json(const std::string& url, std::string body, const AlertLabels& headers,
                      const TlsOptions& tls, std::chrono::milliseconds timeout) {
  HttpRequest request;
  request.method = "POST";
  request.url = url;
  request.headers.emplace_back("Content-Type", "application/json");
  for (const auto& [name, value] : headers)
    request.headers.emplace_back(name, value);
  request.body = std::move(body);
  request.tls = tls;
  request.connect_timeout = timeout;
  request.timeout = timeout;
  request.body_limit = 64 * 1024;
  request.user_agent = "stallwatchd";
  const HttpResponse response = http_request(request);
  if (!response.answered()) return response.error;
  if (!response.ok())
    return "HTTP " + std::to_string(response.status) + ": " + response.body.substr(0, 200);
  return {};
}

}  // namespace stallwatch::collector
