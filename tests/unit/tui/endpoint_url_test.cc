// SPDX-License-Identifier: MIT
#include "endpoint_url.h"

#include <gtest/gtest.h>

#include "api_paths.h"

namespace stallwatch::tui {
namespace {

TEST(EndpointUrlTest, ParsesHostPortAndPrefix) {
  auto r = parse_endpoint_url("http://127.0.0.1:8787");
  ASSERT_TRUE(r.url) << r.error;
  EXPECT_EQ(r.url->host, "127.0.0.1");
  EXPECT_EQ(r.url->port, "8787");
  EXPECT_EQ(r.url->prefix, "");
  EXPECT_EQ(r.url->target("/api/v1/jobs"), "/api/v1/jobs");
  EXPECT_EQ(r.url->host_header(), "127.0.0.1:8787");

  r = parse_endpoint_url("http://example.org/stallwatch//");
  ASSERT_TRUE(r.url) << r.error;
  EXPECT_EQ(r.url->port, "80");
  EXPECT_EQ(r.url->prefix, "/stallwatch");
  EXPECT_EQ(r.url->text, "http://example.org/stallwatch");
  EXPECT_EQ(r.url->target("/healthz"), "/stallwatch/healthz");

  r = parse_endpoint_url("http://[::1]:9/");
  ASSERT_TRUE(r.url) << r.error;
  EXPECT_EQ(r.url->host, "::1");
  EXPECT_EQ(r.url->port, "9");
  EXPECT_EQ(r.url->url("/healthz"), "http://[::1]:9/healthz");

  r = parse_endpoint_url("https://stallwatch.example/sw/");
  ASSERT_TRUE(r.url) << r.error;
  EXPECT_TRUE(r.url->https);
  EXPECT_EQ(r.url->port, "443");
  EXPECT_EQ(r.url->url("/api/v1/jobs"), "https://stallwatch.example:443/sw/api/v1/jobs");
}

TEST(EndpointUrlTest, RejectsWhatItCannotUse) {
  for (const char* bad : {"127.0.0.1:8787", "ftp://h", "http://", "http://h:0", "http://h:99999",
                          "http://h:x", "http://u@h", "http://h/?q=1", "http://[::1"}) {
    const auto r = parse_endpoint_url(bad);
    EXPECT_FALSE(r.url) << bad;
    EXPECT_NE(r.error.find(bad), std::string::npos) << r.error;
  }
}

TEST(EndpointUrlTest, JobIdsAreEncodedInPaths) {
  EXPECT_EQ(encode_path_segment("demo-slow_1.x~"), "demo-slow_1.x~");
  EXPECT_EQ(encode_path_segment("a b/c?"), "a%20b%2Fc%3F");
  EXPECT_EQ(job_path("a/b"), "/api/v1/jobs/a%2Fb");
  EXPECT_EQ(timeline_path("j", 3, 10), "/api/v1/jobs/j/ranks/3/timeline?seconds=10");
  EXPECT_EQ(series_path("j", "data_stall_ratio", "10s", 240),
            "/api/v1/jobs/j/series?metric=data_stall_ratio&window=10s&seconds=240");
}

}  // namespace
}  // namespace stallwatch::tui
