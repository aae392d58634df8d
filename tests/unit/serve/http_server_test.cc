// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "server_fixture.h"

namespace stallwatch::collector::testing {
namespace {

using nlohmann::json;

TEST_F(ServerTest, ServesTheApiOverTheWire) {
  start();
  const HttpResponse health = request(port_, "/healthz");
  ASSERT_EQ(health.status, 200);
  EXPECT_EQ(header_of(health, "content-type"), "application/json");
  EXPECT_EQ(header_of(health, "cache-control"), "no-store");
  EXPECT_EQ(json::parse(health.body)["status"], "ok");

  const HttpResponse jobs = request(port_, "/api/v1/jobs");
  ASSERT_EQ(jobs.status, 200);
  EXPECT_EQ(json::parse(jobs.body)["jobs"][1]["summary"]["60s"]["mean"]["data_stall_ratio"], 0.61);

  const HttpResponse odd = request(port_, "/api/v1/jobs/a%2Fb%20c%3Fd%3D%22e%22%5C%0A%C3%BC");
  ASSERT_EQ(odd.status, 200) << odd.body;
  EXPECT_EQ(json::parse(odd.body)["job"], std::string(kOddJob));

  const HttpResponse missing = request(port_, "/api/v1/jobs/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body)["status"], 404);
  EXPECT_EQ(request(port_, "/api/v1/jobs/demo-slow/ranks/zero/timeline").status, 400);
  EXPECT_EQ(request(port_, "/api/v1/jobs", "POST").status, 405);
  EXPECT_EQ(header_of(request(port_, "/api/v1/jobs", "POST"), "allow"), "GET, HEAD");
  EXPECT_GE(stats().requests, 7u);
}

TEST_F(ServerTest, HeadSendsHeadersOnlyOnAKeepAliveConnection) {
  start();
  const HttpResponse full = request(port_, "/api/v1/jobs/demo-slow");
  ASSERT_EQ(full.status, 200);
  RawClient c(port_);
  ASSERT_TRUE(
      c.send("HEAD /api/v1/jobs/demo-slow HTTP/1.1\r\nHost: x\r\n\r\n"
             "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto head = c.read_response(true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200u);
  EXPECT_EQ(head->header("content-length"), std::to_string(full.body.size()));
  EXPECT_TRUE(head->body.empty());
  const auto next = c.read_response();
  ASSERT_TRUE(next) << "the HEAD response must not carry a body";
  EXPECT_EQ(json::parse(next->body)["status"], "ok");
}

TEST_F(ServerTest, StartFailsNamingTheAddressWhenThePortIsTaken) {
  start();
  ServeConfig config;
  config.host = "127.0.0.1";
  config.port = port_;
  HttpServer second(config, backend_);
  const std::string error = second.start();
  EXPECT_NE(error.find("127.0.0.1:" + std::to_string(port_)), std::string::npos) << error;
  EXPECT_EQ(request(port_, "/healthz").status, 200);

  ServeConfig bad_host;
  bad_host.host = "no-such-host.invalid";
  bad_host.port = 0;
  EXPECT_NE(HttpServer(bad_host, backend_).start(), "");
}

TEST_F(ServerTest, OversizedHeaderGets431AndOthersAreStillServed) {
  ServeConfig config;
  config.max_header_bytes = 8 * 1024;
  start(config);
  RawClient c(port_);
  ASSERT_TRUE(
      c.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n"));
  const auto reply = c.read_response();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 431u);
  EXPECT_EQ(json::parse(reply->body)["status"], 431);
  EXPECT_TRUE(c.wait_closed(20s));
  EXPECT_EQ(request(port_, "/healthz").status, 200);
  EXPECT_GE(stats().bad_requests, 1u);
}

TEST_F(ServerTest, OversizedBodyGets413) {
  ServeConfig config;
  config.max_body_bytes = 1024;
  start(config);
  RawClient c(port_);
  ASSERT_TRUE(c.send("POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n"));
  const auto reply = c.read_response();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 413u);
  EXPECT_EQ(request(port_, "/healthz").status, 200);
}

TEST_F(ServerTest, MalformedRequestsGet400OrAClose) {
  start();
  for (const char* garbage :
       {"HELLO\r\n\r\n", "GET /healthz HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nBad Header\r\n\r\n",
        "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"}) {
    RawClient c(port_);
    ASSERT_TRUE(c.send(garbage));
    const auto reply = c.read_response();
    if (reply) {
      EXPECT_EQ(reply->status, 400u) << garbage;
    }
    EXPECT_TRUE(c.wait_closed(20s)) << garbage;
  }
  EXPECT_EQ(request(port_, "/healthz").status, 200);
  EXPECT_GE(stats().bad_requests, 3u);
}

TEST_F(ServerTest, ConnectionLimitRefusesWhenEveryConnectionIsBusyAndRecovers) {
  ServeConfig config;
  config.max_connections = 3;
  start(config);
  // Each holds its slot with a request it has begun and not finished.
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RawClient>(port_));
    ASSERT_TRUE(held.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
  }
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 3; }));
  std::this_thread::sleep_for(100ms);

  const HttpResponse refused = request(port_, "/healthz");
  EXPECT_TRUE(refused.status == 503 || refused.status == 0) << refused.status;
  EXPECT_GE(stats().connections_refused, 1u);
  EXPECT_EQ(stats().connections_evicted, 0u);

  held.front()->close();
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 2; }));
  EXPECT_EQ(request(port_, "/healthz").status, 200);
}

TEST_F(ServerTest, AtTheLimitTheOldestIdleConnectionIsEvicted) {
  ServeConfig config;
  config.max_connections = 3;
  start(config);
  // The oldest never sends; the second is keep-alive after one answer; the
  // third is busy with a request it has not finished.
  std::vector<std::unique_ptr<RawClient>> held;
  held.push_back(std::make_unique<RawClient>(port_));
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 1; }));
  held.push_back(std::make_unique<RawClient>(port_));
  ASSERT_TRUE(held.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(held.back()->read_response().has_value());
  held.push_back(std::make_unique<RawClient>(port_));
  ASSERT_TRUE(held.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 3; }));
  std::this_thread::sleep_for(100ms);

  EXPECT_EQ(request(port_, "/healthz").status, 200);
  EXPECT_TRUE(held[0]->wait_closed(2s)) << "the oldest idle connection was not closed";
  EXPECT_EQ(stats().connections_evicted, 1u);

  // A newer idle connection fills the limit again: the keep-alive one is
  // now the oldest idle.
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 2; }));
  held.push_back(std::make_unique<RawClient>(port_));
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 3; }));
  EXPECT_EQ(request(port_, "/healthz").status, 200);
  EXPECT_TRUE(held[1]->wait_closed(2s)) << "the keep-alive connection was not closed";
  EXPECT_FALSE(held[3]->wait_closed(200ms)) << "a newer idle connection was closed";
  EXPECT_EQ(stats().connections_evicted, 2u);
  EXPECT_EQ(stats().connections_refused, 0u);
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 2; }));
  const json http = json::parse(request(port_, "/api/v1/status").body)["http"];
  EXPECT_EQ(http["connections_evicted"], 2) << http.dump();
  EXPECT_EQ(http["connections_refused"], 0) << http.dump();
  // The busy one was left alone and still gets its answer.
  ASSERT_TRUE(held[2]->send("\r\n"));
  const auto answer = held[2]->read_response();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 200u);
}

TEST_F(ServerTest, SlowlorisIsClosedWhileOthersAreServed) {
  ServeConfig config;
  config.read_timeout = std::chrono::milliseconds(1000);
  start(config);
  RawClient slow(port_);
  const std::string request_text =
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(200, 'z') + "\r\n\r\n";
  bool closed = false;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  std::size_t sent = 0;
  while (!closed && std::chrono::steady_clock::now() < deadline && sent < request_text.size()) {
    if (!slow.send(request_text.substr(sent++, 1))) closed = true;
    if (!closed && slow.wait_closed(100ms)) closed = true;
    if (sent == 3) {
      EXPECT_EQ(request(port_, "/healthz").status, 200);
    }
  }
  EXPECT_TRUE(closed) << "a client trickling one byte per 100 ms must be cut off by read_timeout";
  EXPECT_LT(sent, request_text.size());
  // The client can see the close before the server has counted it.
  EXPECT_TRUE(eventually([&] { return stats().timeouts >= 1u; }));
}

TEST_F(ServerTest, IdleKeepAliveConnectionsAreClosed) {
  ServeConfig config;
  config.idle_timeout = std::chrono::milliseconds(500);
  start(config);
  RawClient c(port_);
  ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(c.read_response());
  EXPECT_TRUE(c.wait_closed(20s));
  EXPECT_TRUE(eventually([&] { return stats().connections_active == 0; }));
}

// A flood of connections that never send a byte holds the connection slots
// for read_timeout, not for the keep-alive idle_timeout.
TEST_F(ServerTest, AConnectionThatNeverSendsIsClosedAfterReadTimeout) {
  ServeConfig config;
  config.read_timeout = std::chrono::milliseconds(500);
  config.idle_timeout = std::chrono::milliseconds(60'000);
  start(config);
  RawClient silent(port_);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(silent.wait_closed(20s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_TRUE(eventually([&] { return stats().timeouts >= 1u; }));
  EXPECT_TRUE(eventually([&] { return stats().connections_active == 0; }));
}

TEST_F(ServerTest, AClientThatDoesNotReadIsCutOff) {
  backend_.publish(make_state(25, 256));
  ServeConfig config;
  config.write_timeout = std::chrono::milliseconds(1000);
  start(config);
  RawClient hog(port_);
  std::string pipelined;
  for (int i = 0; i < 200; ++i)
    pipelined += "GET /api/v1/jobs/demo-slow HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_TRUE(hog.send(pipelined));
  ASSERT_TRUE(eventually([&] { return stats().timeouts >= 1; }, 60s));
  EXPECT_EQ(request(port_, "/healthz").status, 200);
  EXPECT_TRUE(eventually([&] { return stats().connections_active == 0; }));
}

TEST_F(ServerTest, BearerTokenOverTheWire) {
  ServeConfig config;
  config.bearer_token = "tok";
  start(config);
  const HttpResponse denied = request(port_, "/api/v1/jobs");
  EXPECT_EQ(denied.status, 401);
  EXPECT_EQ(header_of(denied, "www-authenticate"), "Bearer");
  EXPECT_EQ(request(port_, "/api/v1/jobs", "GET", "Authorization: Bearer tok\r\n").status, 200);
  EXPECT_EQ(request(port_, "/healthz").status, 200);
}

TEST_F(ServerTest, PromtoolAcceptsALiveScrape) {
  start();
  const HttpResponse scrape = request(port_, "/metrics");
  ASSERT_EQ(scrape.status, 200);
  EXPECT_EQ(header_of(scrape, "content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string promtool = SW_PROMTOOL;
  ASSERT_FALSE(promtool.empty())
      << "promtool not found: install Debian's prometheus (scripts/install-deps.sh)";
  const std::string path = ::testing::TempDir() + "serve_scrape_" + std::to_string(port_) + ".prom";
  std::ofstream(path) << scrape.body;
  const std::string command = promtool + " check metrics < " + path + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr)
    output += buf;
  const int rc = ::pclose(pipe);
  std::remove(path.c_str());
  EXPECT_EQ(rc, 0) << output;
  EXPECT_EQ(output, "") << output;
}

TEST_F(ServerTest, StopClosesEveryConnectionAndIsIdempotent) {
  start();
  RawClient idle(port_);
  WsClient ws(port_);
  ASSERT_TRUE(ws.ok());
  RawClient partial(port_);
  ASSERT_TRUE(partial.send("GET /heal"));
  ASSERT_TRUE(eventually([&] { return stats().connections_active == 3; }));
  server_->stop();
  EXPECT_TRUE(idle.wait_closed(20s));
  EXPECT_TRUE(partial.wait_closed(20s));
  EXPECT_EQ(request(port_, "/healthz").status, 0);
  server_->stop();
}

}  // namespace
}  // namespace stallwatch::collector::testing
