// SPDX-License-Identifier: MIT
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "fake_backend.h"
#include "http_get.h"
#include "raw_client.h"
#include "serve/http_server.h"
#include "ws_client.h"

namespace stallwatch::collector::testing {

using stallwatch::test::HttpResponse;
using stallwatch::test::WsClient;

// `method` `target` on a fresh connection (Connection: close); status 0 when
// no response came.
inline HttpResponse request(std::uint16_t port, const std::string& target,
                            const std::string& method = "GET",
                            const std::string& extra_headers = {}) {
  return stallwatch::test::http_request("127.0.0.1", port, method, target, extra_headers, 20s);
}

inline std::string header_of(const HttpResponse& r, const std::string& lower_case_name) {
  const auto it = r.headers.find(lower_case_name);
  return it == r.headers.end() ? std::string() : it->second;
}

// Polls `done` until it holds or `timeout` passes (generous: CI is 2 noisy cores).
inline bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// A real HttpServer on 127.0.0.1, port 0, over a FakeBackend.
class ServerTest : public ::testing::Test {
 protected:
  void start(ServeConfig config = {}) {
    config.host = "127.0.0.1";
    config.port = 0;
    server_.emplace(std::move(config), backend_);
    ASSERT_EQ(server_->start(), "");
    port_ = server_->port();
    ASSERT_NE(port_, 0);
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  ServeStats stats() const { return server_->stats(); }

  FakeBackend backend_{make_state(25)};
  std::optional<HttpServer> server_;
  std::uint16_t port_ = 0;
};

}  // namespace stallwatch::collector::testing
