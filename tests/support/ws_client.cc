// SPDX-License-Identifier: MIT
#include "ws_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace stallwatch::test {
namespace {

constexpr int kText = 0x1;
constexpr int kClose = 0x8;
constexpr int kPing = 0x9;

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

WsClient::WsClient(int port, std::string_view target) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
  const std::string request = "GET " + std::string(target) +
                              " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                              "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                              "Sec-WebSocket-Version: 13\r\n\r\n";
  if (!send_all(fd_, request)) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::size_t end = std::string::npos;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(deadline)) return;
  }
  ok_ = buffer_.rfind("HTTP/1.1 101", 0) == 0;
  buffer_.erase(0, end + 4);
}

WsClient::~WsClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool WsClient::fill(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
  char buf[65536];
  const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) return false;
  buffer_.append(buf, static_cast<std::size_t>(n));
  return true;
}

std::optional<std::string> WsClient::read(std::chrono::milliseconds timeout) {
  if (!ok_) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string message;
  while (true) {
    while (buffer_.size() < 2) {
      if (!fill(deadline)) return std::nullopt;
    }
    const auto b0 = static_cast<std::uint8_t>(buffer_[0]);
    const auto b1 = static_cast<std::uint8_t>(buffer_[1]);
    std::size_t header = 2;
    std::uint64_t length = b1 & 0x7fu;
    const std::size_t extra = length == 126 ? 2 : length == 127 ? 8 : 0;
    while (buffer_.size() < header + extra) {
      if (!fill(deadline)) return std::nullopt;
    }
    if (extra > 0) {
      length = 0;
      for (std::size_t i = 0; i < extra; ++i) {
        length = length << 8 | static_cast<std::uint8_t>(buffer_[header + i]);
      }
      header += extra;
    }
    const std::size_t mask_bytes = (b1 & 0x80u) != 0 ? 4 : 0;
    while (buffer_.size() < header + mask_bytes + length) {
      if (!fill(deadline)) return std::nullopt;
    }
    std::string payload = buffer_.substr(header + mask_bytes, length);
    for (std::size_t i = 0; mask_bytes != 0 && i < payload.size(); ++i) {
      payload[i] = static_cast<char>(payload[i] ^ buffer_[header + i % 4]);
    }
    buffer_.erase(0, header + mask_bytes + length);
    const int opcode = b0 & 0x0f;
    if (opcode == kClose) return std::nullopt;
    if (opcode == kPing) {
      send_frame(0xA, payload);
      continue;
    }
    if (opcode >= 0x8) continue;
    message += payload;
    if ((b0 & 0x80u) != 0) return message;
  }
}

bool WsClient::send_text(std::string_view text) {
  return send_frame(kText, text);
}

bool WsClient::send_frame(int opcode, std::string_view payload) {
  if (!ok_) return false;
  std::string frame;
  frame.push_back(static_cast<char>(0x80 | opcode));
  const std::size_t n = payload.size();
  if (n < 126) {
    frame.push_back(static_cast<char>(0x80 | n));
  } else if (n <= 0xffff) {
    frame.push_back(static_cast<char>(0x80 | 126));
    frame.push_back(static_cast<char>(n >> 8));
    frame.push_back(static_cast<char>(n & 0xff));
  } else {
    frame.push_back(static_cast<char>(0x80 | 127));
    for (int shift = 56; shift >= 0; shift -= 8) {
      frame.push_back(static_cast<char>((static_cast<std::uint64_t>(n) >> shift) & 0xff));
    }
  }
  const char mask[4] = {0x12, 0x34, 0x56, 0x78};
  frame.append(mask, 4);
  for (std::size_t i = 0; i < n; ++i)
    frame.push_back(static_cast<char>(payload[i] ^ mask[i % 4]));
  return send_all(fd_, frame);
}

}  // namespace stallwatch::test
