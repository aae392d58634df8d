// SPDX-License-Identifier: MIT
// The HTTP client against a real HTTPS server with a throw-away CA.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http_client/http_client.h"
#include "https_server.h"

namespace stallwatch::collector {
namespace {

using Json = nlohmann::json;

HttpRequest get(const std::string& url, const std::string& ca_file) {
  HttpRequest r;
  r.url = url;
  r.tls.ca_file = ca_file;
  return r;
}

TEST(HttpsTest, VerifiesTheServerAgainstTheConfiguredCa) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  HttpRequest request = get(server.url() + "/api/v1/jobs", test::test_pki().ca);
  request.method = "POST";
  request.body = "{\"k\":1}";
  const HttpResponse r = http_request(request);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Json::parse(r.body).at("path"), "/api/v1/jobs");
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(Json::parse(seen[0]).at("body"), "{\"k\":1}");
}

TEST(HttpsTest, RefusesACertificateFromAnUntrustedCa) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  for (const std::string& ca : {test::test_pki().other_ca, std::string()}) {
    const HttpResponse r = http_request(get(server.url(), ca));
    EXPECT_EQ(r.status, 0) << ca;
    EXPECT_TRUE(r.tls_failure) << r.error;
    EXPECT_NE(r.error.find("not trusted"), std::string::npos) << r.error;
  }
  EXPECT_TRUE(server.requests().empty());
}

TEST(HttpsTest, RefusesACertificateForAnotherHost) {
  test::HttpsServerOptions options;
  options.cert = test::test_pki().wrong_host_cert;
  options.key = test::test_pki().wrong_host_key;
  test::HttpsServer server(options);
  ASSERT_TRUE(server.started()) << server.error();
  const HttpResponse r = http_request(get(server.url(), test::test_pki().ca));
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.tls_failure) << r.error;
  EXPECT_NE(r.error.find("127.0.0.1"), std::string::npos) << r.error;
  EXPECT_TRUE(server.requests().empty());
}

TEST(HttpsTest, MutualTlsSendsTheClientCertificate) {
  const test::TestPki& pki = test::test_pki();
  test::HttpsServerOptions options;
  options.client_ca = pki.ca;
  test::HttpsServer server(options);
  ASSERT_TRUE(server.started()) << server.error();

  const HttpResponse without = http_request(get(server.url(), pki.ca));
  EXPECT_EQ(without.status, 0) << without.body;

  HttpRequest request = get(server.url() + "/hook", pki.ca);
  request.tls.client_cert = pki.client_cert;
  request.tls.client_key = pki.client_key;
  const HttpResponse with = http_request(request);
  EXPECT_EQ(with.error, "");
  EXPECT_EQ(with.status, 200);
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(Json::parse(seen[0]).at("client"), "stallwatch test client");
}

TEST(HttpsTest, AMissingCaFileSaysSo) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  const HttpResponse r = http_request(get(server.url(), "/nonexistent/ca.pem"));
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.error.find("/nonexistent/ca.pem"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace stallwatch::collector
