// SPDX-License-Identifier: MIT
#include "http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace stallwatch::test {
namespace {

std::string dechunk(const std::string& body) {
  std::string out;
  std::size_t pos = 0;
  while (pos < body.size()) {
    const auto eol = body.find("\r\n", pos);
    if (eol == std::string::npos) break;
    const std::size_t size = std::stoul(body.substr(pos, eol - pos), nullptr, 16);
    if (size == 0) break;
    out.append(body, eol + 2, size);
    pos = eol + 2 + size + 2;
  }
  return out;
}

}  // namespace

HttpResponse http_request(const std::string& host, int port, const std::string& method,
                          const std::string& target, const std::string& extra_headers,
                          std::chrono::milliseconds timeout) {
  HttpResponse response;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return response;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return response;
  }
  const std::string request = method + " " + target + " HTTP/1.1\r\nHost: " + host + ":" +
                              std::to_string(port) + "\r\nConnection: close\r\n" + extra_headers +
                              "\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return response;
  }
  std::string raw;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  const auto header_end = raw.find("\r\n\r\n");
  if (header_end == std::string::npos || raw.rfind("HTTP/1.", 0) != 0) return response;
  response.status = std::atoi(raw.c_str() + 9);
  std::size_t line_start = raw.find("\r\n") + 2;
  while (line_start < header_end) {
    const auto line_end = raw.find("\r\n", line_start);
    const std::string line = raw.substr(line_start, line_end - line_start);
    if (auto colon = line.find(':'); colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      response.headers[name] = value;
    }
    line_start = line_end + 2;
  }
  response.body = raw.substr(header_end + 4);
  if (response.headers["transfer-encoding"] == "chunked") response.body = dechunk(response.body);
  return response;
}

}  // namespace stallwatch::test
