// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "server_fixture.h"

namespace stallwatch::collector::testing {
namespace {

using nlohmann::json;

json read_json(WsClient& ws) {
  const auto text = ws.read();
  if (!text) return json();
  return json::parse(*text);
}

// Reads messages until one satisfies `want`; null json when none came.
json read_until(WsClient& ws, const std::function<bool(const json&)>& want) {
  for (int i = 0; i < 1000; ++i) {
    json m = read_json(ws);
    if (m.is_null() || want(m)) return m;
  }
  return json();
}

TEST_F(ServerTest, WebSocketHelloThenATickPerOnTick) {
  start();
  WsClient ws(port_);
  ASSERT_TRUE(ws.ok());
  const json hello = read_json(ws);
  EXPECT_EQ(hello["type"], "hello");
  EXPECT_EQ(hello["version"], "0.1.0");
  EXPECT_EQ(hello["tick_ms"], 500);
  EXPECT_EQ(hello["windows"], json({"10s", "60s", "300s", "total"}));
  EXPECT_EQ(hello["verdict_window"], "60s");

  ASSERT_TRUE(eventually([&] { return stats().websocket_sessions == 1; }));
  backend_.publish(make_state(26));
  server_->on_tick();
  const json tick = read_json(ws);
  EXPECT_EQ(tick["type"], "tick");
  EXPECT_EQ(tick["tick"], 26);
  EXPECT_EQ(tick["now_ns"], json(1'700'000'000'000'000'000));
  ASSERT_EQ(tick["jobs"].size(), 2u);
  EXPECT_EQ(tick["jobs"][1]["summary"]["60s"]["mean"]["data_stall_ratio"], 0.61);
  EXPECT_EQ(tick["alerts"].size(), 2u);
  EXPECT_TRUE(tick.contains("job") && tick["job"].is_null());

  backend_.publish(make_state(27));
  server_->on_tick();
  EXPECT_EQ(read_json(ws)["tick"], 27);
}

TEST_F(ServerTest, WebSocketSubscribeSendsTheJobDetail) {
  start();
  WsClient a(port_);
  WsClient b(port_);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(read_json(a)["type"], "hello");
  EXPECT_EQ(read_json(b)["type"], "hello");
  ASSERT_TRUE(eventually([&] { return stats().websocket_sessions == 2; }));
  server_->on_tick();
  EXPECT_TRUE(read_json(a)["job"].is_null());
  EXPECT_TRUE(read_json(b)["job"].is_null());

  ASSERT_TRUE(a.send_text(R"({"type":"subscribe","job":"demo-slow"})"));
  // The subscription answers at once with the latest tick, then every tick carries the detail.
  const json now = read_until(a, [](const json& m) { return !m["job"].is_null(); });
  ASSERT_FALSE(now.is_null());
  EXPECT_EQ(now["job"]["job"], "demo-slow");
  EXPECT_EQ(now["job"]["ranks"].size(), 2u);
  EXPECT_EQ(now["job"]["ranks"][0]["windows"]["60s"]["data_stall_ratio"], 0.61);

  ASSERT_TRUE(b.send_text(json{{"type", "subscribe"}, {"job", std::string(kOddJob)}}.dump()));
  const json odd = read_until(b, [](const json& m) { return !m["job"].is_null(); });
  EXPECT_EQ(odd["job"]["job"], std::string(kOddJob));

  backend_.publish(make_state(30));
  server_->on_tick();
  const json next_a = read_until(a, [](const json& m) { return m["tick"] == 30; });
  EXPECT_EQ(next_a["job"]["job"], "demo-slow");
  const json next_b = read_until(b, [](const json& m) { return m["tick"] == 30; });
  EXPECT_EQ(next_b["job"]["job"], std::string(kOddJob));

  ASSERT_TRUE(a.send_text(R"({"type":"subscribe","job":null})"));
  ASSERT_TRUE(b.send_text(R"({"type":"subscribe","job":"no-such-job"})"));
  // Each subscription is answered at once with the latest tick (30), now without detail.
  EXPECT_EQ(read_until(a, [](const json& m) { return m["job"].is_null(); })["tick"], 30);
  EXPECT_EQ(read_until(b, [](const json& m) { return m["job"].is_null(); })["tick"], 30);
  backend_.publish(make_state(31));
  server_->on_tick();
  EXPECT_TRUE(read_until(a, [](const json& m) { return m["tick"] == 31; })["job"].is_null());
  EXPECT_TRUE(read_until(b, [](const json& m) { return m["tick"] == 31; })["job"].is_null());
}

TEST_F(ServerTest, WebSocketIgnoresJunkAndClosesOnOversizedMessages) {
  ServeConfig config;
  config.max_ws_message_bytes = 4096;
  start(config);
  WsClient ws(port_);
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ(read_json(ws)["type"], "hello");
  ASSERT_TRUE(ws.send_text("not json"));
  ASSERT_TRUE(ws.send_text(R"({"type":"launch-missiles"})"));
  ASSERT_TRUE(ws.send_text(R"([1,2,3])"));
  ASSERT_TRUE(ws.send_text(R"({"type":"subscribe","job":42})"));
  ASSERT_TRUE(eventually([&] { return stats().websocket_messages_rejected == 4; }));
  server_->on_tick();
  EXPECT_EQ(read_json(ws)["type"], "tick") << "junk must not end the session";

  ASSERT_TRUE(ws.send_text(std::string(5000, 'x')));
  EXPECT_FALSE(read_until(ws, [](const json&) { return false; }).is_object());
  EXPECT_TRUE(eventually([&] { return stats().websocket_messages_rejected == 5; }));
  EXPECT_TRUE(eventually([&] { return stats().websocket_sessions == 0; }));
}

TEST_F(ServerTest, SlowWebSocketReaderSkipsTicksAndGetsTheNewest) {
  backend_.publish(make_state(0, 256));
  start();
  WsClient slow(port_);
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(read_json(slow)["type"], "hello");
  ASSERT_TRUE(eventually([&] { return stats().websocket_sessions == 1; }));
  server_->on_tick();
  EXPECT_TRUE(read_json(slow)["job"].is_null());
  ASSERT_TRUE(slow.send_text(R"({"type":"subscribe","job":"demo-slow"})"));
  ASSERT_EQ(read_json(slow)["job"]["job"], "demo-slow");
  const std::uint64_t skipped_before = stats().websocket_ticks_skipped;

  // Each tick carries ~1 MB of job detail; the client reads nothing meanwhile.
  constexpr int kTicks = 150;
  for (int i = 1; i <= kTicks; ++i) {
    backend_.publish(make_state(static_cast<std::uint64_t>(i), 256));
    server_->on_tick();
  }
  ASSERT_TRUE(eventually([&] { return stats().websocket_ticks_skipped > skipped_before; }));
  EXPECT_EQ(request(port_, "/healthz").status, 200) << "a stuck reader must not stall the server";

  // At most one message waits behind the one in flight: draining ends with
  // the newest tick, and every tick pushed was either sent or skipped.
  int received = 0;
  std::uint64_t last = 0;
  while (last != kTicks) {
    const auto text = slow.read();
    ASSERT_TRUE(text) << "stream ended before the newest tick";
    const json m = json::parse(*text);
    ASSERT_EQ(m["type"], "tick");
    ASSERT_EQ(m["job"]["job"], "demo-slow");
    last = m["tick"].get<std::uint64_t>();
    ++received;
  }
  const std::uint64_t skipped = stats().websocket_ticks_skipped - skipped_before;
  EXPECT_LT(received, kTicks);
  EXPECT_EQ(static_cast<std::uint64_t>(received) + skipped, static_cast<std::uint64_t>(kTicks));
}

TEST_F(ServerTest, ConcurrentClientsOnSeveralIoThreads) {
  ServeConfig config;
  config.io_threads = 2;
  start(config);
  WsClient ws(port_);
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ(read_json(ws)["type"], "hello");
  ASSERT_TRUE(ws.send_text(R"({"type":"subscribe","job":"demo-slow"})"));

  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const char* target = (i + t) % 2 == 0 ? "/api/v1/jobs/demo-slow" : "/metrics";
        if (request(port_, target).status == 200) ok.fetch_add(1);
      }
    });
  }
  for (std::uint64_t tick = 100; tick < 140; ++tick) {
    backend_.publish(make_state(tick));
    server_->on_tick();
  }
  for (std::thread& c : clients)
    c.join();
  EXPECT_EQ(ok.load(), 80);
  const json last =
      read_until(ws, [](const json& m) { return m["tick"] == 139 && !m["job"].is_null(); });
  EXPECT_EQ(last["job"]["job"], "demo-slow");
}

TEST_F(ServerTest, WebSocketNeedsTheTokenWhenConfigured) {
  ServeConfig config;
  config.bearer_token = "tok";
  start(config);
  const auto handshake = [this](const std::string& target, const std::string& headers) {
    RawClient c(port_);
    c.send("GET " + target +
           " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
           headers + "\r\n");
    while (c.buffer().find("\r\n\r\n") == std::string::npos) {
      if (!c.fill(20s)) return std::string("no answer");
    }
    return c.buffer().substr(0, c.buffer().find("\r\n"));
  };
  EXPECT_EQ(handshake("/api/v1/stream", ""), "HTTP/1.1 401 Unauthorized");
  EXPECT_EQ(handshake("/api/v1/stream?token=nope", ""), "HTTP/1.1 401 Unauthorized");
  EXPECT_EQ(handshake("/api/v1/stream", "Authorization: Bearer tok\r\n"),
            "HTTP/1.1 101 Switching Protocols");
  WsClient by_query(port_, "/api/v1/stream?token=tok");
  ASSERT_TRUE(by_query.ok());
  EXPECT_EQ(read_json(by_query)["type"], "hello");
}

}  // namespace
}  // namespace stallwatch::collector::testing
