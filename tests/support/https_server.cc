// SPDX-License-Identifier: MIT
#include "https_server.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stallwatch::test {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ChildOptions server_options(const std::string& dir, const HttpsServerOptions& o) {
  const TestPki& pki = test_pki();
  ChildOptions c;
  c.argv = {"/usr/bin/env",
            "python3",
            std::string(STALLWATCH_TEST_TLS_DIR) + "/https_server.py",
            "--cert",
            dir + "/cert.pem",
            "--key",
            dir + "/key.pem",
            "--port-file",
            dir + "/port",
            "--log",
            dir + "/requests.jsonl",
            "--status",
            std::to_string(o.status)};
  for (int n : o.fail_requests) {
    c.argv.push_back("--fail-request");
    c.argv.push_back(std::to_string(n));
  }
  if (!o.client_ca.empty()) {
    c.argv.push_back("--client-ca");
    c.argv.push_back(o.client_ca);
  }
  c.output_path = dir + "/server.log";
  namespace fs = std::filesystem;
  fs::copy_file(o.cert.empty() ? pki.server_cert : o.cert, dir + "/cert.pem");
  fs::copy_file(o.key.empty() ? pki.server_key : o.key, dir + "/key.pem");
  return c;
}

}  // namespace

const TestPki& test_pki() {
  static const TestPki pki = [] {
    static TempDir dir;  // lives until the process exits
    TestPki p;
    p.dir = dir.path();
    const std::string command = std::string(STALLWATCH_TEST_TLS_DIR) + "/make_test_certs.sh '" +
                                p.dir + "' >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) return p;
    p.ca = p.dir + "/ca.pem";
    p.other_ca = p.dir + "/other_ca.pem";
    p.server_cert = p.dir + "/server.pem";
    p.server_key = p.dir + "/server.key";
    p.wrong_host_cert = p.dir + "/wrong_host.pem";
    p.wrong_host_key = p.dir + "/wrong_host.key";
    p.client_cert = p.dir + "/client.pem";
    p.client_key = p.dir + "/client.key";
    p.renewed_cert = p.dir + "/renewed.pem";
    p.renewed_key = p.dir + "/renewed.key";
    p.other_server_cert = p.dir + "/other_server.pem";
    p.other_server_key = p.dir + "/other_server.key";
    return p;
  }();
  return pki;
}

HttpsServer::HttpsServer(HttpsServerOptions options)
    : log_(dir_.path() + "/requests.jsonl"),
      child_(test_pki().ca.empty() ? ChildOptions{} : server_options(dir_.path(), options)) {
  if (test_pki().ca.empty()) {
    error_ = "cannot make the test certificates with openssl";
    return;
  }
  if (!child_.start()) {
    error_ = "cannot start python3";
    return;
  }
  const std::string port_file = dir_.path() + "/port";
  const bool up =
      wait_until([&] { return std::filesystem::exists(port_file) || !child_.running(); },
                 std::chrono::seconds(30));
  if (!up || !std::filesystem::exists(port_file)) {
    error_ = "https_server.py did not start: " + child_.output();
    return;
  }
  port_ = std::atoi(read_file(port_file).c_str());
}

std::string HttpsServer::url() const {
  return "https://127.0.0.1:" + std::to_string(port_);
}

void HttpsServer::serve(const std::string& cert, const std::string& key) {
  namespace fs = std::filesystem;
  const auto opts = fs::copy_options::overwrite_existing;
  fs::copy_file(key, dir_.path() + "/key.pem.new", opts);
  fs::copy_file(cert, dir_.path() + "/cert.pem.new", opts);
  fs::rename(dir_.path() + "/key.pem.new", dir_.path() + "/key.pem");
  fs::rename(dir_.path() + "/cert.pem.new", dir_.path() + "/cert.pem");
}

std::vector<std::string> HttpsServer::requests() const {
  std::vector<std::string> out;
  std::ifstream in(log_);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

}  // namespace stallwatch::test
