// SPDX-License-Identifier: MIT
#include "http_client/http_client.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "http_receiver.h"

namespace stallwatch::collector {
namespace {

using namespace std::chrono_literals;

HttpRequest post(std::string url, std::string body) {
  HttpRequest r;
  r.method = "POST";
  r.url = std::move(url);
  r.body = std::move(body);
  r.headers = {{"Content-Type", "application/json"}};
  return r;
}

TEST(HttpClientTest, PostsTheBodyAndHeaders) {
  test::HttpReceiver server;
  HttpRequest request = post(server.url() + "/hook?a=1", "{\"k\":1}");
  request.headers.emplace_back("Authorization", "Bearer t");
  const HttpResponse r = http_request(request);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  ASSERT_EQ(server.count(), 1u);
  const auto req = server.requests()[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.target, "/hook?a=1");
  EXPECT_EQ(req.body, "{\"k\":1}");
  EXPECT_EQ(req.headers.at("content-type"), "application/json");
  EXPECT_EQ(req.headers.at("authorization"), "Bearer t");
  EXPECT_EQ(req.headers.count("expect"), 0u);
}

TEST(HttpClientTest, ErrorStatusIsAnAnswer) {
  test::HttpReceiver server;
  server.set_status(500);
  const HttpResponse r = http_request(post(server.url(), "[]"));
  EXPECT_EQ(r.status, 500);
  EXPECT_TRUE(r.answered());
  EXPECT_FALSE(r.ok());
}

TEST(HttpClientTest, RedirectsAreNotFollowed) {
  test::HttpReceiver server;
  server.set_status(302);
  const HttpResponse r = http_request(post(server.url(), "[]"));
  EXPECT_EQ(r.status, 302);
  EXPECT_EQ(server.count(), 1u);
}

TEST(HttpClientTest, RefusedConnectionIsAFailure) {
  int port = 0;
  {
    test::HttpReceiver server;  // take a port, then free it
    port = server.port();
  }
  const HttpResponse r = http_request(post("http://127.0.0.1:" + std::to_string(port), "[]"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.error, "connection refused");
}

TEST(HttpClientTest, LoopbackIsReachedDirectlyWhenTheEnvironmentNamesAProxy) {
  int dead_port = 0;
  {
    test::HttpReceiver gone;  // a proxy address nothing listens on
    dead_port = gone.port();
  }
  const std::string proxy = "http://127.0.0.1:" + std::to_string(dead_port);
  ::setenv("http_proxy", proxy.c_str(), 1);
  ::setenv("HTTPS_PROXY", proxy.c_str(), 1);
  test::HttpReceiver server;
  const HttpResponse r = http_request(post(server.url(), "[]"));
  ::unsetenv("http_proxy");
  ::unsetenv("HTTPS_PROXY");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(server.count(), 1u);
}

TEST(HttpClientTest, SlowServerTimesOut) {
  test::HttpReceiver server;
  server.set_delay(5s);
  HttpRequest request = post(server.url(), "[]");
  request.timeout = 300ms;
  const auto t0 = std::chrono::steady_clock::now();
  const HttpResponse r = http_request(request);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.error, "timed out: no answer within 300 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 4s);
}

TEST(HttpClientTest, AnswerOverTheLimitIsAFailure) {
  test::HttpReceiver server;
  HttpRequest request = post(server.url(), "[]");
  request.body_limit = 1;
  const HttpResponse r = http_request(request);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.error, "answer larger than the client's limit");
}

}  // namespace
}  // namespace stallwatch::collector
