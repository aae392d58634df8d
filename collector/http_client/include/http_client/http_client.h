// SPDX-License-Identifier: MIT
#pragma once

// One blocking HTTP(S) request on libcurl. https verifies the server's
// certificate and host name by default (against the system's CAs, or
// `tls.ca_file`); a client certificate and key give mutual TLS. Proxies come
// from the environment (http_proxy, https_proxy, no_proxy) as libcurl reads
// them; redirects are never followed; only http and https are spoken.
//
// Each call uses its own connection and shares nothing with other calls, so
// any thread may call http_request(); it blocks the caller up to
// `timeout` (name resolution included). Errors are values: a transport
// failure has status 0 and a sentence. libcurl lives in this component alone.

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace stallwatch::collector {

struct TlsOptions {
  std::string ca_file;      // PEM bundle to trust instead of the system's; empty: system
  std::string client_cert;  // PEM client certificate for mutual TLS; empty: none
  std::string client_key;   // its PEM private key; empty: in client_cert
};

struct HttpRequest {
  std::string method = "GET";  // "GET" or "POST"
  std::string url;             // http:// or https://
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent with POST
  TlsOptions tls;
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds timeout{5000};  // the whole exchange
  std::size_t body_limit = std::size_t{64} << 20;
  std::string user_agent = "stallwatch";
};

struct HttpResponse {
  int status = 0;            // HTTP status; 0 when no answer came
  std::string body;          // the answer's body, at most body_limit bytes
  std::string error;         // why no answer came, when status == 0; else empty
  bool tls_failure = false;  // the TLS handshake or certificate check failed

  bool answered() const { return status != 0; }
  bool ok() const { return status >= 200 && status <= 299; }
};

HttpResponse http_request(const HttpRequest& request);

}  // namespace stallwatch::collector
