// SPDX-License-Identifier: MIT
// stallwatchd serving its API, page and WebSocket over TLS ([http] tls_cert,
// tls_key), checked with real TLS against the test CA of tests/support/tls.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_process.h"
#include "http_client/http_client.h"
#include "https_server.h"
#include "test_env.h"

namespace stallwatch::test {
namespace {

using namespace std::chrono_literals;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

constexpr const char* kToken = "tls-test-token";

DaemonOptions tls_daemon() {
  DaemonOptions options;
  options.extra_args = {"--http-tls-cert", test_pki().server_cert, "--http-tls-key",
                        test_pki().server_key};
  options.config_toml = "[http]\ntoken = \"" + std::string(kToken) + "\"\n";
  return options;
}

std::string base_url(const DaemonProcess& daemon) {
  return "https://127.0.0.1:" + std::to_string(daemon.http_port());
}

collector::HttpResponse https_get(const DaemonProcess& daemon, const std::string& path,
                                  bool with_token, const std::string& ca_file) {
  collector::HttpRequest request;
  request.url = base_url(daemon) + path;
  request.tls.ca_file = ca_file;
  if (with_token) request.headers.emplace_back("Authorization", std::string("Bearer ") + kToken);
  return collector::http_request(request);
}

TEST(TlsServeTest, ApiAnswersOverHttpsWithTheTokenAndRefusesWithout) {
  DaemonProcess daemon(tls_daemon());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  const std::string& ca = test_pki().ca;

  const auto status = https_get(daemon, "/api/v1/status", true, ca);
  EXPECT_EQ(status.status, 200) << status.error;
  EXPECT_EQ(status.body.substr(0, 1), "{") << status.body;
  EXPECT_EQ(https_get(daemon, "/api/v1/status", false, ca).status, 401);
  EXPECT_EQ(https_get(daemon, "/api/v1/jobs?token=" + std::string(kToken), false, ca).status, 200);

  const auto page = https_get(daemon, "/", false, ca);
  EXPECT_EQ(page.status, 200) << page.error;
  EXPECT_NE(page.body.find("<html"), std::string::npos);
  EXPECT_EQ(https_get(daemon, "/healthz", false, ca).status, 200);

  const auto untrusted = https_get(daemon, "/healthz", false, test_pki().other_ca);
  EXPECT_EQ(untrusted.status, 0);
  EXPECT_TRUE(untrusted.tls_failure) << untrusted.error;
  // A plain-HTTP client gets no answer from the TLS port.
  EXPECT_EQ(daemon.get("/healthz").status, 0);
  EXPECT_NE(daemon.log().find("dashboard and API on https://127.0.0.1:"), std::string::npos);
}

using Wss = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

// Connects and finishes the TLS handshake, verifying the server against the test CA.
void connect_tls(Wss& ws, const DaemonProcess& daemon) {
  tcp::resolver resolver(ws.get_executor());
  beast::get_lowest_layer(ws).connect(
      resolver.resolve("127.0.0.1", std::to_string(daemon.http_port())));
  ws.next_layer().set_verify_callback(ssl::host_name_verification("127.0.0.1"));
  ws.next_layer().handshake(ssl::stream_base::client);
}

std::string read_text(Wss& ws) {
  beast::flat_buffer buffer;
  ws.read(buffer);
  return beast::buffers_to_string(buffer.data());
}

TEST(TlsServeTest, WebSocketStreamSpeaksWssWithTheToken) {
  DaemonProcess daemon(tls_daemon());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  net::io_context ioc;
  ssl::context tls(ssl::context::tls_client);
  tls.load_verify_file(test_pki().ca);
  tls.set_verify_mode(ssl::verify_peer);
  const std::string host = "127.0.0.1:" + std::to_string(daemon.http_port());

  Wss refused(ioc, tls);
  connect_tls(refused, daemon);
  websocket::response_type response;
  beast::error_code ec;
  // Beast 1.74's synchronous handshake leaves `response` empty when declined.
  refused.handshake(response, host, "/api/v1/stream", ec);
  EXPECT_EQ(ec, websocket::error::upgrade_declined) << ec.message();

  Wss ws(ioc, tls);
  connect_tls(ws, daemon);
  ws.set_option(websocket::stream_base::decorator([](websocket::request_type& request) {
    request.set(beast::http::field::authorization, std::string("Bearer ") + kToken);
  }));
  ws.handshake(host, "/api/v1/stream");
  EXPECT_NE(read_text(ws).find("\"type\":\"hello\""), std::string::npos);
  EXPECT_NE(read_text(ws).find("\"type\":\"tick\""), std::string::npos);
  ws.close(websocket::close_code::normal);
}

// `stallwatch status --url https://...`: exit status and output.
std::optional<int> run_status(const DaemonProcess& daemon, const std::vector<std::string>& extra,
                              const std::string& output_path, std::string& output) {
  std::vector<std::string> argv{STALLWATCH_CLI,   "status",  "--url",
                                base_url(daemon), "--token", kToken};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ChildProcess cli({argv, {}, output_path});
  if (!cli.start()) return std::nullopt;
  const auto status = cli.wait(30s);
  output = cli.output();
  return status;
}

TEST(TlsServeTest, StatusCommandTrustsTheDaemonOnlyWithItsCa) {
  DaemonProcess daemon(tls_daemon());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  TempDir dir;
  std::string output;
  EXPECT_EQ(run_status(daemon, {"--ca-file", test_pki().ca}, dir.path() + "/trusted", output), 0)
      << output;
  EXPECT_NE(output.find(" at " + base_url(daemon)), std::string::npos) << output;

  const auto untrusted = run_status(daemon, {}, dir.path() + "/untrusted", output);
  ASSERT_TRUE(untrusted.has_value());
  EXPECT_NE(*untrusted, 0);
  EXPECT_NE(output.find("TLS: the server's certificate is not trusted"), std::string::npos)
      << output;
}

std::optional<int> run_daemon(const std::vector<std::string>& args, const TempDir& dir,
                              std::string& output) {
  std::vector<std::string> argv{stallwatchd_path(), "--ingest",
                                "tcp://127.0.0.1:" + std::to_string(free_tcp_port()), "--http",
                                "127.0.0.1:" + std::to_string(free_tcp_port())};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess daemon({argv, {}, dir.path() + "/stallwatchd.out"});
  if (!daemon.start()) return std::nullopt;
  const auto status = daemon.wait(15s);
  output = daemon.output();
  return status;
}

TEST(TlsServeTest, ACertificateOrKeyThatDoesNotLoadIsRefusedAtStart) {
  TempDir dir;
  const TestPki& pki = test_pki();
  std::string output;
  const std::string missing = dir.path() + "/missing.pem";
  EXPECT_EQ(run_daemon({"--http-tls-cert", missing, "--http-tls-key", pki.server_key}, dir, output),
            2);
  EXPECT_NE(output.find("cannot read TLS certificate '" + missing + "'"), std::string::npos)
      << output;

  EXPECT_EQ(run_daemon({"--http-tls-cert", pki.server_cert, "--http-tls-key", pki.wrong_host_key},
                       dir, output),
            2);
  EXPECT_NE(output.find("does not match certificate '" + pki.server_cert + "'"), std::string::npos)
      << output;

  EXPECT_EQ(run_daemon({"--http-tls-cert", pki.server_key, "--http-tls-key", pki.server_key}, dir,
                       output),
            2);
  EXPECT_NE(output.find("TLS certificate '" + pki.server_key + "' is not a PEM certificate"),
            std::string::npos)
      << output;

  EXPECT_EQ(run_daemon({"--http-tls-cert", pki.server_cert}, dir, output), 2);
  EXPECT_NE(output.find("go together"), std::string::npos) << output;
}

// The common name of the certificate a new connection is served, verified
// against the test CA; "" when the handshake fails.
std::string served_name(const DaemonProcess& daemon) {
  net::io_context ioc;
  ssl::context tls(ssl::context::tls_client);
  tls.load_verify_file(test_pki().ca);
  tls.set_verify_mode(ssl::verify_peer);
  beast::ssl_stream<beast::tcp_stream> stream(ioc, tls);
  beast::error_code ec;
  beast::get_lowest_layer(stream).connect(
      tcp::endpoint(net::ip::make_address("127.0.0.1"),
                    static_cast<unsigned short>(daemon.http_port())),
      ec);
  if (!ec) stream.handshake(ssl::stream_base::client, ec);
  if (ec) return {};
  X509* cert = SSL_get1_peer_certificate(stream.native_handle());
  if (cert == nullptr) return {};
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof name);
  X509_free(cert);
  stream.shutdown(ec);
  return name;
}

void install(const std::string& cert, const std::string& key, const std::string& dir) {
  namespace fs = std::filesystem;
  fs::copy_file(cert, dir + "/cert.pem", fs::copy_options::overwrite_existing);
  fs::copy_file(key, dir + "/key.pem", fs::copy_options::overwrite_existing);
}

TEST(TlsServeTest, SighupReloadsTheCertificateAndABrokenPairKeepsTheOldOne) {
  const TestPki& pki = test_pki();
  TempDir files;
  install(pki.server_cert, pki.server_key, files.path());
  DaemonOptions options = tls_daemon();
  options.extra_args = {"--http-tls-cert", files.path() + "/cert.pem", "--http-tls-key",
                        files.path() + "/key.pem"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  EXPECT_EQ(served_name(daemon), "stallwatch test server");

  // A stream opened before the reloads lives through them.
  net::io_context ioc;
  ssl::context tls(ssl::context::tls_client);
  tls.load_verify_file(pki.ca);
  tls.set_verify_mode(ssl::verify_peer);
  Wss ws(ioc, tls);
  connect_tls(ws, daemon);
  ws.set_option(websocket::stream_base::decorator([](websocket::request_type& request) {
    request.set(beast::http::field::authorization, std::string("Bearer ") + kToken);
  }));
  ws.handshake("127.0.0.1:" + std::to_string(daemon.http_port()), "/api/v1/stream");
  EXPECT_NE(read_text(ws).find("\"type\":\"hello\""), std::string::npos);

  install(pki.renewed_cert, pki.renewed_key, files.path());
  ASSERT_EQ(::kill(daemon.pid(), SIGHUP), 0);
  EXPECT_TRUE(wait_until([&] { return daemon.log().find("SIGHUP: reloaded") != std::string::npos; },
                         5s, 20ms))
      << daemon.log();
  EXPECT_EQ(served_name(daemon), "stallwatch test renewed");

  // The renewed certificate with the old key: refused, the renewed pair serves on.
  install(pki.renewed_cert, pki.server_key, files.path());
  ASSERT_EQ(::kill(daemon.pid(), SIGHUP), 0);
  EXPECT_TRUE(wait_until(
      [&] {
        return daemon.log().find(
                   "SIGHUP: new TLS certificate refused, still serving the previous "
                   "one: TLS key '" +
                   files.path() + "/key.pem' does not match") != std::string::npos;
      },
      5s, 20ms))
      << daemon.log();
  EXPECT_TRUE(daemon.running());
  EXPECT_EQ(served_name(daemon), "stallwatch test renewed");
  const auto metrics = https_get(daemon, "/metrics", true, pki.ca);
  EXPECT_NE(metrics.body.find("stallwatch_http_tls_reloads_total 1\n"), std::string::npos);
  EXPECT_NE(metrics.body.find("stallwatch_http_tls_reload_failures_total 1\n"), std::string::npos);
  EXPECT_NE(read_text(ws).find("\"type\":\"tick\""), std::string::npos);
  ws.close(websocket::close_code::normal);
}

}  // namespace
}  // namespace stallwatch::test
