// SPDX-License-Identifier: MIT
#pragma once

// A minimal blocking HTTP/1.1 client for tests (POSIX sockets, Connection:
// close, Content-Length or read-to-EOF bodies). Test-only: no TLS, no chunked
// encoding support beyond de-chunking simple responses.

#include <chrono>
#include <map>
#include <string>

namespace stallwatch::test {

struct HttpResponse {
  int status = 0;                              // 0: no response (connection refused, timeout)
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

HttpResponse http_request(const std::string& host, int port, const std::string& method,
                          const std::string& target, const std::string& extra_headers = {},
                          std::chrono::milliseconds timeout = std::chrono::seconds(5));

inline HttpResponse http_get(int port, const std::string& target) {
  return http_request("127.0.0.1", port, "GET", target);
}

}  // namespace stallwatch::test
