// SPDX-License-Identifier: MIT
// One HttpClient (and so one thread's http_request) reuses its connection:
// requests to one server open one TCP connection, over plain HTTP and TLS.

#include <gtest/gtest.h>

#include <thread>

#include "http_client/http_client.h"
#include "https_server.h"
#include "keep_alive_server.h"

namespace stallwatch::collector {
namespace {

HttpRequest get(const std::string& url) {
  HttpRequest r;
  r.url = url + "/api/v1/jobs";
  r.tls.ca_file = test::test_pki().ca;
  return r;
}

TEST(ConnectionReuseTest, RequestsOfOneClientShareOnePlainConnection) {
  test::KeepAliveServer server;
  HttpClient client;
  for (int i = 0; i < 3; ++i) {
    const HttpResponse r = client.request(get(server.url()));
    ASSERT_EQ(r.status, 200) << r.error;
  }
  EXPECT_EQ(server.requests(), 3u);
  EXPECT_EQ(server.connections(), 1u);
  EXPECT_EQ(client.connections_opened(), 1u);
}

TEST(ConnectionReuseTest, RequestsOfOneClientShareOneTlsConnection) {
  const test::TestPki& pki = test::test_pki();
  ASSERT_FALSE(pki.ca.empty());
  test::KeepAliveServer server({pki.server_cert, pki.server_key});
  HttpClient client;
  for (int i = 0; i < 3; ++i) {
    const HttpResponse r = client.request(get(server.url()));
    ASSERT_EQ(r.status, 200) << r.error;
  }
  EXPECT_EQ(server.requests(), 3u);
  EXPECT_EQ(server.connections(), 1u);
  // Another CA is another TLS set-up: not the same connection.
  HttpRequest other = get(server.url());
  other.tls.ca_file = pki.other_ca;
  EXPECT_TRUE(client.request(other).tls_failure);
  EXPECT_EQ(server.connections(), 2u);
}

TEST(ConnectionReuseTest, EachThreadHasItsOwnConnection) {
  const test::TestPki& pki = test::test_pki();
  test::KeepAliveServer server({pki.server_cert, pki.server_key});
  const auto twice = [&] {
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(http_request(get(server.url())).status, 200);
  };
  std::thread a(twice);
  a.join();
  std::thread b(twice);
  b.join();
  EXPECT_EQ(server.requests(), 4u);
  EXPECT_EQ(server.connections(), 2u);
}

}  // namespace
}  // namespace stallwatch::collector
