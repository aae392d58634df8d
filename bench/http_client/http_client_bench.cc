// SPDX-License-Identifier: MIT
// Requests/s of the HTTP client against a local keep-alive HTTPS server:
// one HttpClient reusing its connection, then a new HttpClient (a new TCP
// connection and TLS handshake) per request, as before connection reuse.
// Usage: bench_http_client [REQUESTS] (default 2000). Prints both figures,
// then one JSON line.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "http_client/http_client.h"
#include "https_server.h"
#include "keep_alive_server.h"

namespace {

using stallwatch::collector::HttpClient;
using stallwatch::collector::HttpRequest;

struct Run {
  double per_second = 0;
  std::uint64_t connections = 0;
  int failures = 0;
};

template <class Request>
Run measure(int n, stallwatch::test::KeepAliveServer& server, Request request) {
  const std::uint64_t before = server.connections();
  Run run;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    if (request().status != 200) ++run.failures;
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  run.per_second = n / took.count();
  run.connections = server.connections() - before;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const auto& pki = stallwatch::test::test_pki();
  if (pki.ca.empty()) {
    std::fprintf(stderr, "bench_http_client: openssl could not make the test certificates\n");
    return 1;
  }
  stallwatch::test::KeepAliveServer server({pki.server_cert, pki.server_key});
  HttpRequest request;
  request.url = server.url() + "/api/v1/jobs";
  request.tls.ca_file = pki.ca;

  HttpClient reused;
  const Run keep = measure(n, server, [&] { return reused.request(request); });
  const Run fresh = measure(n, server, [&] {
    HttpClient once;
    return once.request(request);
  });
  std::printf("%d GET requests over TLS (EC P-256, TLS 1.3) to 127.0.0.1, one at a time\n", n);
  std::printf("  one reused connection:      %8.0f requests/s  (%llu connections, %d failed)\n",
              keep.per_second, static_cast<unsigned long long>(keep.connections), keep.failures);
  std::printf("  a new connection each time: %8.0f requests/s  (%llu connections, %d failed)\n",
              fresh.per_second, static_cast<unsigned long long>(fresh.connections), fresh.failures);
  std::printf(
      "{\"requests\": %d, \"reused_per_second\": %.0f, \"new_connection_per_second\": %.0f, "
      "\"speedup\": %.2f}\n",
      n, keep.per_second, fresh.per_second, keep.per_second / fresh.per_second);
  return keep.failures + fresh.failures == 0 ? 0 : 1;
}
