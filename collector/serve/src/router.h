// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bearer_auth.h"
#include "serve/api_backend.h"
#include "serve/serve_config.h"
#include "serve/serve_stats.h"

namespace stallwatch::collector {

// One parsed request, as far as the router needs it.
struct HttpRequest {
  std::string_view method;         // "GET", "HEAD", ...
  std::string_view target;         // origin-form, still encoded
  std::string_view authorization;  // the Authorization header, empty when absent
};

struct HttpResponse {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Cache-Control: no-store on API responses; assets get no-cache.
  bool no_store = true;
  std::vector<std::pair<std::string_view, std::string>> headers;  // Allow, WWW-Authenticate
};

// Maps HTTP requests to responses for every endpoint of docs/api.md except
// the WebSocket upgrade itself. Transport-free: the HTTP session turns its
// parsed request into an HttpRequest and writes the HttpResponse (for HEAD,
// without the body).
//
// Reads the backend's current state once per request and never keeps it.
// Immutable after construction; called from any io thread concurrently.
class Router {
 public:
  Router(const ServeConfig& config, const ApiBackend& backend, const ServeCounters& counters);

  HttpResponse handle(const HttpRequest& request) const;

  // For the WebSocket upgrade: is `target` the stream endpoint, and may the
  // request open it (bearer header or `?token=`).
  bool is_stream(std::string_view target) const;
  bool authorized(const HttpRequest& request) const;

  static HttpResponse error(unsigned status, std::string_view message);

 private:
  HttpResponse route_api(const std::vector<std::string_view>& segments,
                         std::string_view query) const;
  HttpResponse job_detail(std::string_view job_segment) const;
  HttpResponse timeline(std::string_view job_segment, std::string_view rank_segment,
                        std::string_view query) const;
  HttpResponse series(std::string_view job_segment, std::string_view query) const;
  HttpResponse metrics() const;
  HttpResponse static_file(std::string_view path) const;

  const ServeConfig& config_;
  const ApiBackend& backend_;
  const ServeCounters& counters_;
  BearerAuth auth_;
};

}  // namespace stallwatch::collector
