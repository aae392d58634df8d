// SPDX-License-Identifier: MIT
// The TUI's requests go through the shared HTTP client: an https:// collector
// is reached with --ca-file, and refused when its certificate is not trusted.

#include "http_fetch.h"

#include <gtest/gtest.h>

#include "https_server.h"

namespace stallwatch::tui {
namespace {

TEST(HttpFetchTest, ReachesAnHttpsCollectorWithTheCaFile) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  const UrlResult url = parse_endpoint_url(server.url() + "/prefix");
  ASSERT_TRUE(url.url) << url.error;
  FetchOptions options;
  options.token = "s3cret";
  options.ca_file = test::test_pki().ca;
  const HttpResult r = http_fetch(*url.url, "/api/v1/jobs", options);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("/prefix/api/v1/jobs"), std::string::npos) << r.body;
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].find("\"authorization\": \"Bearer s3cret\""), std::string::npos) << seen[0];
}

TEST(HttpFetchTest, AnUntrustedCollectorIsAFailureForTheUser) {
  test::HttpsServer server;
  ASSERT_TRUE(server.started()) << server.error();
  const UrlResult url = parse_endpoint_url(server.url());
  ASSERT_TRUE(url.url) << url.error;
  FetchOptions options;
  options.ca_file = test::test_pki().other_ca;
  const HttpResult r = http_fetch(*url.url, "/api/v1/status", options);
  EXPECT_FALSE(r.answered());
  EXPECT_NE(describe_failure(r).find("TLS: the server's certificate is not trusted"),
            std::string::npos)
      << describe_failure(r);
}

}  // namespace
}  // namespace stallwatch::tui
