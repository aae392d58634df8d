// SPDX-License-Identifier: MIT
#include "keep_alive_server.h"

#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace stallwatch::test {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

struct KeepAliveServer::Impl {
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::optional<ssl::context> tls;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> connections{0};
  std::atomic<std::uint64_t> requests{0};
  std::mutex mutex;
  std::vector<int> open_fds;  // mutex
  std::vector<std::thread> threads;
  std::thread accept_thread;
  int port = 0;

  template <class Stream>
  void serve(Stream& stream) {
    boost::beast::flat_buffer buffer;
    boost::beast::error_code ec;
    while (!stopping) {
      http::request<http::string_body> request;
      http::read(stream, buffer, request, ec);
      if (ec) return;
      http::response<http::string_body> response{http::status::ok, request.version()};
      response.set(http::field::content_type, "application/json");
      response.body() = "{\"ok\":true}";
      response.keep_alive(request.keep_alive());
      response.prepare_payload();
      requests.fetch_add(1);
      http::write(stream, response, ec);
      if (ec || !request.keep_alive()) return;
    }
  }

  void connection(tcp::socket socket) {
    if (tls) {
      ssl::stream<tcp::socket&> stream(socket, *tls);
      boost::beast::error_code ec;
      stream.handshake(ssl::stream_base::server, ec);
      if (!ec) serve(stream);
    } else {
      serve(socket);
    }
    // Forgotten before the socket closes: its number may be reused at once.
    std::lock_guard lock(mutex);
    std::erase(open_fds, socket.native_handle());
  }

  void accept_loop() {
    while (true) {
      boost::beast::error_code ec;
      tcp::socket socket(ioc);
      acceptor.accept(socket, ec);
      if (stopping) return;
      if (ec) continue;
      connections.fetch_add(1);
      std::lock_guard lock(mutex);
      open_fds.push_back(socket.native_handle());
      threads.emplace_back([this, s = std::move(socket)]() mutable { connection(std::move(s)); });
    }
  }
};

KeepAliveServer::KeepAliveServer(KeepAliveServerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (!options.cert.empty()) {
    m.tls.emplace(ssl::context::tls_server);
    m.tls->use_certificate_chain_file(options.cert);
    m.tls->use_private_key_file(options.key, ssl::context::pem);
  }
  const tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), 0);
  m.acceptor.open(endpoint.protocol());
  m.acceptor.set_option(net::socket_base::reuse_address(true));
  m.acceptor.bind(endpoint);
  m.acceptor.listen();
  m.port = m.acceptor.local_endpoint().port();
  m.accept_thread = std::thread([&m] { m.accept_loop(); });
}

KeepAliveServer::~KeepAliveServer() {
  Impl& m = *impl_;
  m.stopping = true;
  {
    // Wakes the blocked accept().
    boost::beast::error_code ec;
    tcp::socket wake(m.ioc);
    wake.connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(m.port)), ec);
    m.accept_thread.join();
  }
  {
    // Ends every connection's blocked read; the threads take the mutex to end.
    std::lock_guard lock(m.mutex);
    for (int fd : m.open_fds)
      ::shutdown(fd, SHUT_RDWR);
  }
  // No thread is added after the accept thread ended.
  for (std::thread& t : m.threads)
    t.join();
}

int KeepAliveServer::port() const {
  return impl_->port;
}

std::string KeepAliveServer::url() const {
  return std::string(impl_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(impl_->port);
}

std::uint64_t KeepAliveServer::connections() const {
  return impl_->connections.load();
}

std::uint64_t KeepAliveServer::requests() const {
  return impl_->requests.load();
}

}  // namespace stallwatch::test
