#include "http_client.h"

#include <gtest/gtest.h>

#include "http_receiver.h"

namespace stallwatch::collector {
namespace {

using namespace std::chrono_literals;

TEST(HttpUrlTest, SplitsHttpUrls) {
  auto u = parse_http_url("http://127.0.0.1:9093");
  EXPECT_EQ(u.error, "");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, "9093");
  EXPECT_EQ(u.target, "/");
  u = parse_http_url("http://am.example/prefix/?x=1");
  EXPECT_EQ(u.host, "am.example");
  EXPECT_EQ(u.port, "80");
  EXPECT_EQ(u.target, "/prefix/?x=1");
  u = parse_http_url("http://[::1]:8080/hook");
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.port, "8080");
  EXPECT_EQ(join_url_path("/prefix/", "/api/v2/alerts"), "/prefix/api/v2/alerts");
}

TEST(HttpUrlTest, RejectsWhatTheClientCannotDo) {
  EXPECT_NE(parse_http_url("https://x").error.find("https is not supported"), std::string::npos);
  EXPECT_NE(parse_http_url("ftp://x").error, "");
  EXPECT_NE(parse_http_url("http://:80").error, "");
  EXPECT_NE(parse_http_url("http://x:99999").error, "");
  EXPECT_NE(parse_http_url("http://user:pw@x").error, "");
}

TEST(HttpClientTest, PostsTheBodyAndHeaders) {
  test::HttpReceiver server;
  const auto r = http_post(parse_http_url(server.url() + "/hook?a=1"), "application/json",
                           "{\"k\":1}", {{"Authorization", "Bearer t"}}, 5s);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  ASSERT_EQ(server.count(), 1u);
  const auto req = server.requests()[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.target, "/hook?a=1");
  EXPECT_EQ(req.body, "{\"k\":1}");
  EXPECT_EQ(req.headers.at("content-type"), "application/json");
  EXPECT_EQ(req.headers.at("authorization"), "Bearer t");
}

TEST(HttpClientTest, ErrorStatusIsAFailureWithTheStatus) {
  test::HttpReceiver server;
  server.set_status(500);
  const auto r = http_post(parse_http_url(server.url()), "application/json", "[]", {}, 5s);
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.error.find("HTTP 500"), std::string::npos) << r.error;
}

TEST(HttpClientTest, RefusedConnectionIsAFailure) {
  int port = 0;
  {
    test::HttpReceiver server;  // take a port, then free it
    port = server.port();
  }
  const auto r = http_post(parse_http_url("http://127.0.0.1:" + std::to_string(port)),
                           "application/json", "[]", {}, 5s);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.error.find("connect"), std::string::npos) << r.error;
}

TEST(HttpClientTest, SlowServerTimesOut) {
  test::HttpReceiver server;
  server.set_delay(5s);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = http_post(parse_http_url(server.url()), "application/json", "[]", {}, 300ms);
  EXPECT_NE(r.error.find("timed out"), std::string::npos) << r.error;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 4s);
}

}  // namespace
}  // namespace stallwatch::collector
