// SPDX-License-Identifier: MIT
// The live view's WebSocket link over wss:// against a real stallwatchd
// serving TLS with the test CA of tests/support/tls.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "daemon_process.h"
#include "endpoint_url.h"
#include "https_server.h"
#include "stream_client.h"

namespace stallwatch::tui {
namespace {

using namespace std::chrono_literals;

constexpr const char* kToken = "wss-test-token";

test::DaemonOptions tls_daemon() {
  test::DaemonOptions options;
  options.extra_args = {"--http-tls-cert", test::test_pki().server_cert, "--http-tls-key",
                        test::test_pki().server_key};
  options.config_toml = "[http]\ntoken = \"" + std::string(kToken) + "\"\n";
  return options;
}

EndpointUrl https_url(const test::DaemonProcess& daemon) {
  auto parsed = parse_endpoint_url("https://127.0.0.1:" + std::to_string(daemon.http_port()));
  EXPECT_TRUE(parsed.url) << parsed.error;
  return *parsed.url;
}

// Waits up to 10 s for a hello and a tick; returns what the link said.
LinkStatus wait_for_ticks(StreamClient& client, bool& got_hello, bool& got_tick) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline && !(got_hello && got_tick)) {
    const StreamInbox inbox = client.take();
    got_hello = got_hello || inbox.hello.has_value();
    got_tick = got_tick || inbox.tick.has_value();
    std::this_thread::sleep_for(20ms);
  }
  return client.status();
}

TEST(StreamClientTlsTest, LiveOverWssWithTheCollectorsCa) {
  test::DaemonProcess daemon(tls_daemon());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  StreamClient client(https_url(daemon), kToken, test::test_pki().ca);
  client.start();
  bool hello = false;
  bool tick = false;
  const LinkStatus link = wait_for_ticks(client, hello, tick);
  EXPECT_TRUE(hello);
  EXPECT_TRUE(tick);
  EXPECT_EQ(link.state, LinkState::kLive) << link.error;
  EXPECT_EQ(link.connections, 1u);
}

TEST(StreamClientTlsTest, AnUntrustedCertificateIsRefusedAndSaidSo) {
  test::DaemonProcess daemon(tls_daemon());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  StreamClient client(https_url(daemon), kToken, test::test_pki().other_ca);
  client.start();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline && client.status().error.empty())
    std::this_thread::sleep_for(20ms);
  const LinkStatus link = client.status();
  EXPECT_FALSE(client.take().hello.has_value());
  EXPECT_EQ(link.connections, 0u);
  EXPECT_NE(link.error.find("TLS: certificate verify failed"), std::string::npos) << link.error;
}

}  // namespace
}  // namespace stallwatch::tui
