// SPDX-License-Identifier: MIT
#pragma once

// A minimal blocking WebSocket (RFC 6455) client for integration tests:
// connects to 127.0.0.1, upgrades, reads text messages (answering pings) and
// sends masked text frames. Test-only: no TLS, no extensions, no validation
// of the server's Sec-WebSocket-Accept beyond the 101 status.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::test {

class WsClient {
 public:
  WsClient(int port, std::string_view target = "/api/v1/stream");
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  // True when the server answered the upgrade with 101.
  bool ok() const { return ok_; }
  // The next complete text message; nullopt on close, error or timeout.
  std::optional<std::string> read(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool send_text(std::string_view text);

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);
  bool send_frame(int opcode, std::string_view payload);

  int fd_ = -1;
  bool ok_ = false;
  std::string buffer_;
};

}  // namespace stallwatch::test
