// SPDX-License-Identifier: MIT
#pragma once

// A local HTTP/1.1 server on 127.0.0.1 that keeps connections alive and
// counts the TCP connections it accepts, for tests and benchmarks of
// connection reuse. Plain HTTP, or TLS with the given certificate and key.
// Answers every request 200 with a small JSON body. One thread accepts;
// each connection is served on a thread of its own until the client closes
// it or the server is destroyed. Test-only.

#include <cstdint>
#include <memory>
#include <string>

namespace stallwatch::test {

struct KeepAliveServerOptions {
  std::string cert;  // PEM certificate chain; empty (with key): plain HTTP
  std::string key;
};

class KeepAliveServer {
 public:
  explicit KeepAliveServer(KeepAliveServerOptions options = {});
  ~KeepAliveServer();
  KeepAliveServer(const KeepAliveServer&) = delete;
  KeepAliveServer& operator=(const KeepAliveServer&) = delete;

  int port() const;
  // "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT".
  std::string url() const;
  std::uint64_t connections() const;  // TCP connections accepted so far
  std::uint64_t requests() const;     // requests answered so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stallwatch::test
