// SPDX-License-Identifier: MIT
#include "http_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace stallwatch::test {

HttpReceiver::HttpReceiver() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(listen_fd_, 16);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

HttpReceiver::~HttpReceiver() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
}

std::vector<ReceivedRequest> HttpReceiver::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t HttpReceiver::count() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}

bool HttpReceiver::wait_for(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
}

void HttpReceiver::serve() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    handle(fd);
    ::close(fd);
  }
}

void HttpReceiver::handle(int fd) {
  std::string data;
  char buf[4096];
  std::size_t header_end = std::string::npos;
  std::size_t content_length = 0;
  ReceivedRequest req;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline && !stop_) {
    if (header_end != std::string::npos && data.size() >= header_end + 4 + content_length) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    data.append(buf, static_cast<std::size_t>(n));
    if (header_end == std::string::npos &&
        (header_end = data.find("\r\n\r\n")) != std::string::npos) {
      const std::string head = data.substr(0, header_end);
      std::size_t line_end = head.find("\r\n");
      const std::string request_line = head.substr(0, line_end);
      const auto sp1 = request_line.find(' ');
      const auto sp2 = request_line.find(' ', sp1 + 1);
      req.method = request_line.substr(0, sp1);
      req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
      while (line_end != std::string::npos && line_end < head.size()) {
        const std::size_t start = line_end + 2;
        line_end = head.find("\r\n", start);
        const std::string line = head.substr(
            start, line_end == std::string::npos ? std::string::npos : line_end - start);
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        req.headers[name] = value;
      }
      if (auto it = req.headers.find("content-length"); it != req.headers.end()) {
        content_length = std::stoul(it->second);
      }
    }
  }
  if (header_end == std::string::npos) return;
  req.body = data.substr(header_end + 4, content_length);
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(std::move(req));
  }
  cv_.notify_all();
  const int delay = delay_ms_;
  for (int waited = 0; waited < delay && !stop_; waited += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int status = status_;
  const std::string body = status == 200 ? "{}" : "{\"error\":\"test\"}";
  const std::string response =
      "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n" +
      "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  ::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
}

}  // namespace stallwatch::test
