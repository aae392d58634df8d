// SPDX-License-Identifier: MIT
#include "raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cstring>

namespace stallwatch::collector::testing {
namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;

std::string Reply::header(const std::string& name) const {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

RawClient::RawClient(std::uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) close();
}

RawClient::~RawClient() {
  close();
}

void RawClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawClient::send(std::string_view bytes) {
  while (fd_ >= 0 && !bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return fd_ >= 0;
}

bool RawClient::fill(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
  std::array<char, 65536> chunk;
  const ssize_t n = ::recv(fd_, chunk.data(), chunk.size(), 0);
  if (n <= 0) return false;
  buffer_.append(chunk.data(), static_cast<std::size_t>(n));
  return true;
}

bool RawClient::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    pollfd p{fd_, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(1, left.count()))) <= 0) continue;
    std::array<char, 65536> chunk;
    const ssize_t n = ::recv(fd_, chunk.data(), chunk.size(), 0);
    if (n <= 0) return true;
  }
  return false;
}

std::optional<Reply> RawClient::read_response(bool head, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  parser.skip(head);
  parser.eager(true);
  while (true) {
    while (!buffer_.empty() && !parser.is_done()) {
      boost::beast::error_code ec;
      const std::size_t used = parser.put(boost::asio::buffer(buffer_), ec);
      if (ec == http::error::need_more) break;
      if (ec) return std::nullopt;
      buffer_.erase(0, used);
      if (used == 0) break;
    }
    if (parser.is_done()) break;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    if (!fill(left)) {
      boost::beast::error_code ec;
      parser.put_eof(ec);
      if (ec || !parser.is_done()) return std::nullopt;
      break;
    }
  }
  const auto& msg = parser.get();
  Reply r;
  r.status = msg.result_int();
  for (const auto& field : msg) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    r.headers[name] = std::string(field.value());
  }
  r.body = msg.body();
  return r;
}

}  // namespace stallwatch::collector::testing
