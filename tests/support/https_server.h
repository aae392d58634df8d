// SPDX-License-Identifier: MIT
#pragma once

// Real TLS for the tests: a throw-away PKI made with `openssl` (tls/
// make_test_certs.sh) and a local HTTPS server (tls/https_server.py, run with
// python3) that records what it is sent. Test-only; used from the test's
// main thread.

#include <chrono>
#include <string>
#include <vector>

#include "child_process.h"
#include "test_env.h"

namespace stallwatch::test {

// The certificates of one test binary, made once on first use in a
// temporary directory that lives until the process exits.
struct TestPki {
  std::string dir;
  std::string ca;           // the test CA, trusted by the tests
  std::string other_ca;     // a CA that signed none of the certificates below
  std::string server_cert;  // for 127.0.0.1 and localhost
  std::string server_key;
  std::string wrong_host_cert;  // for wrong.example only
  std::string wrong_host_key;
  std::string client_cert;  // for mutual TLS (CN "stallwatch test client")
  std::string client_key;
  std::string renewed_cert;  // another one for 127.0.0.1 and localhost ("stallwatch test renewed")
  std::string renewed_key;
  std::string other_server_cert;  // for 127.0.0.1, signed by other_ca
  std::string other_server_key;
};
const TestPki& test_pki();

struct HttpsServerOptions {
  std::string cert;                // default: test_pki().server_cert
  std::string key;                 // default: test_pki().server_key
  std::string client_ca;           // non-empty: require a client certificate signed by it
  int status = 200;                // the status of every answer but those below
  std::vector<int> fail_requests;  // 1-based request numbers answered 503
};

// One python3 https_server.py on 127.0.0.1; killed on destruction. The
// certificate it serves can be swapped while it runs (serve()).
class HttpsServer {
 public:
  explicit HttpsServer(HttpsServerOptions options = {});
  ~HttpsServer() = default;
  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  // False when the server did not come up; why in error().
  bool started() const { return port_ != 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  // "https://127.0.0.1:<port>"
  std::string url() const;
  // Serves this certificate and key from the next connection on.
  void serve(const std::string& cert, const std::string& key);
  // Every request answered so far, one JSON object each (method, path,
  // headers, body, client).
  std::vector<std::string> requests() const;

 private:
  TempDir dir_;
  std::string log_;
  ChildProcess child_;
  int port_ = 0;
  std::string error_;
};

}  // namespace stallwatch::test
