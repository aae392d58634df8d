// SPDX-License-Identifier: MIT
#pragma once

// Blocking HTTP(S) requests on libcurl. https verifies the server's
// certificate and host name by default (against the system's CAs, or
// `tls.ca_file`); a client certificate and key give mutual TLS. Proxies come
// from the environment (http_proxy, https_proxy, no_proxy) as libcurl reads
// them; redirects are never followed; only http and https are spoken.
//
// Connections are kept alive and reused: a second request to the same server
// (same scheme, host, port and TLS settings) goes over the connection of the
// first, without a new TCP or TLS handshake, as long as the server keeps it
// open. A request blocks the caller up to `timeout` (name resolution
// included). Errors are values: a transport failure has status 0 and a
// sentence. libcurl lives in this component alone.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
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

// One libcurl handle and its connection cache (up to 5 connections), reused
// by every request(). Not thread-safe: one thread owns an HttpClient and
// makes its requests; other threads make their own.
class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResponse request(const HttpRequest& request);
  // New connections this client opened (a reused one is not counted).
  std::uint64_t connections_opened() const { return connections_opened_; }

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
  std::uint64_t connections_opened_ = 0;
};

// The request on the calling thread's own HttpClient, made on the thread's
// first request and kept until the thread ends: one per thread (an alert
// sink's worker, the dashboard's fetch thread, each HTTP io thread), so any
// thread may call it and connections are reused within a thread, never
// shared between threads.
HttpResponse http_request(const HttpRequest& request);

}  // namespace stallwatch::collector
