// SPDX-License-Identifier: MIT
#include "http_client/http_url.h"

#include <gtest/gtest.h>

namespace stallwatch::collector {
namespace {

TEST(HttpUrlTest, SplitsHttpAndHttpsUrls) {
  auto u = parse_http_url("http://127.0.0.1:9093");
  ASSERT_TRUE(u.ok()) << u.error;
  EXPECT_EQ(u.scheme, "http");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 9093);
  EXPECT_EQ(u.path, "/");
  EXPECT_EQ(u.text(), "http://127.0.0.1:9093/");

  u = parse_http_url("https://events.pagerduty.com/v2/enqueue");
  ASSERT_TRUE(u.ok()) << u.error;
  EXPECT_TRUE(u.https());
  EXPECT_EQ(u.port, 443);
  EXPECT_EQ(u.path, "/v2/enqueue");

  u = parse_http_url("http://am.example/prefix/?x=1");
  EXPECT_EQ(u.port, 80);
  EXPECT_EQ(u.path, "/prefix/");
  EXPECT_EQ(u.query, "x=1");
  EXPECT_EQ(u.text(), "http://am.example:80/prefix/?x=1");
  EXPECT_EQ(u.with_path("/api/v2/alerts"), "http://am.example:80/prefix/api/v2/alerts");

  u = parse_http_url("https://[::1]:8443/hook");
  ASSERT_TRUE(u.ok()) << u.error;
  EXPECT_EQ(u.host, "[::1]");
  EXPECT_EQ(u.port, 8443);
  EXPECT_EQ(u.text(), "https://[::1]:8443/hook");
}

TEST(HttpUrlTest, RejectsWhatTheClientWillNotDo) {
  for (const char* bad : {"ftp://x", "127.0.0.1:8787", "http://", "http://:80", "http://x:0",
                          "http://x:99999", "http://x:y", "http://user:pw@x", "https://u@x/",
                          "http://x/#frag", "http://[::1", "file:///etc/passwd"}) {
    const HttpUrl u = parse_http_url(bad);
    EXPECT_FALSE(u.ok()) << bad;
    EXPECT_NE(u.error.find(bad), std::string::npos) << u.error;
  }
  EXPECT_NE(parse_http_url("ftp://x").error.find("only http:// and https://"), std::string::npos);
  EXPECT_NE(parse_http_url("http://u:p@x").error.find("user:password@"), std::string::npos);
}

}  // namespace
}  // namespace stallwatch::collector
