// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::collector::testing {

using namespace std::chrono_literals;

struct Reply {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string header(const std::string& name) const;
};

// A blocking loopback TCP client with poll()-based deadlines, for what the
// shared helpers (tests/support/http_get.h, ws_client.h) cannot do: pipelined
// and HEAD requests on one connection, partial and trickled requests, and
// waiting for the server to hang up.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  // False when the peer has closed or reset the connection.
  bool send(std::string_view bytes);
  // One HTTP response (headers only when `head`); nullopt when the
  // connection closed or `timeout` passed first.
  std::optional<Reply> read_response(bool head = false, std::chrono::milliseconds timeout = 20s);
  // Waits for the server to close; true if it did within `timeout`.
  bool wait_closed(std::chrono::milliseconds timeout);
  // Reads up to `n` bytes into the internal buffer; false on close/timeout.
  bool fill(std::chrono::milliseconds timeout);
  std::string& buffer() { return buffer_; }
  void close();

 private:
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace stallwatch::collector::testing
