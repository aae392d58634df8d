// SPDX-License-Identifier: MIT
#include "serve/http_server.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <thread>
#include <vector>

#include "api_json.h"
#include "sessions.h"
#include "tls_context.h"

namespace stallwatch::collector {

using namespace detail;

namespace {

constexpr std::chrono::milliseconds kAcceptRetry{100};

// Accepts connections. At max_connections the oldest connection waiting for
// a request is closed to admit the new one (counted as evicted); only when
// every connection is busy does the new one get a best-effort 503 and is
// closed at once, without ever blocking the io thread. The evicted
// connection frees its slot on its own strand, so the count of open
// connections may exceed the limit by the evictions in flight.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(net::io_context& ioc, ServerContext& ctx)
      : ioc_(ioc), ctx_(ctx), acceptor_(ioc), retry_(ioc) {}

  beast::error_code open(const tcp::endpoint& endpoint) {
    beast::error_code ec;
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    return ec;
  }

  std::uint16_t port() const {
    beast::error_code ec;
    return acceptor_.local_endpoint(ec).port();
  }

  void accept() {
    acceptor_.async_accept(net::make_strand(ioc_),
                           beast::bind_front_handler(&Listener::on_accept, shared_from_this()));
  }

 private:
  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) {
      // Out of descriptors or similar: try again shortly instead of spinning.
      retry_.expires_after(kAcceptRetry);
      retry_.async_wait([self = shared_from_this()](beast::error_code) { self->accept(); });
      return;
    }
    if (ctx_.counters.connections_active.load(std::memory_order_relaxed) <
        ctx_.config.max_connections) {
      admit(std::move(socket));
    } else if (const auto idle = ctx_.idle.claim_oldest()) {
      bump(ctx_.counters.connections_evicted);
      idle->evict();
      admit(std::move(socket));
    } else {
      bump(ctx_.counters.connections_refused);
      refuse(socket);
    }
    accept();
  }

  void admit(tcp::socket&& socket) {
    bump(ctx_.counters.connections_accepted);
    if (ctx_.tls) {
      std::make_shared<HttpSession<TlsStream>>(std::move(socket), ctx_,
                                               ConnectionSlot(ctx_.counters))
          ->run();
    } else {
      std::make_shared<HttpSession<PlainStream>>(std::move(socket), ctx_,
                                                 ConnectionSlot(ctx_.counters))
          ->run();
    }
  }

  static void refuse(tcp::socket& socket) {
    static const std::string kResponse = [] {
      const std::string body = error_json(503, "too many connections");
      return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
             "application/json\r\nContent-Length: " +
             std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    }();
    beast::error_code ec;
    socket.non_blocking(true, ec);
    socket.write_some(net::buffer(kResponse), ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }

  net::io_context& ioc_;
  ServerContext& ctx_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
};

}  // namespace

struct HttpServer::Impl {
  Impl(ServeConfig config, ApiBackend& backend) : ctx(std::move(config), backend) {}

  ServerContext ctx;
  ServerCertificate certificate;
  std::optional<net::io_context> ioc;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::shared_ptr<Listener> listener;
  std::vector<std::thread> threads;
  std::uint16_t port = 0;
};

HttpServer::HttpServer(ServeConfig config, ApiBackend& backend)
    : impl_(std::make_unique<Impl>(std::move(config), backend)) {}

HttpServer::~HttpServer() {
  stop();
}

std::string HttpServer::start() {
  Impl& m = *impl_;
  const ServeConfig& config = m.ctx.config;
  const std::string address = config.host + ":" + std::to_string(config.port);
  if (m.ioc) return "cannot listen on " + address + ": the server is already running";
  if (!config.tls_cert_file.empty() || !config.tls_key_file.empty()) {
    std::string error;
    m.ctx.tls = make_server_tls_context(config.tls_cert_file, config.tls_key_file, error);
    if (!m.ctx.tls) return error;
    if (auto err = m.certificate.load(config.tls_cert_file, config.tls_key_file); !err.empty())
      return err;
    m.certificate.attach(*m.ctx.tls);
  }
  const auto threads = std::max<std::size_t>(1, config.io_threads);
  m.ioc.emplace(static_cast<int>(threads));

  beast::error_code ec;
  tcp::resolver resolver(*m.ioc);
  const auto results =
      resolver.resolve(config.host, std::to_string(config.port),
                       tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (!ec && results.empty()) ec = net::error::host_not_found;
  if (!ec) {
    m.listener = std::make_shared<Listener>(*m.ioc, m.ctx);
    ec = m.listener->open(results.begin()->endpoint());
  }
  if (ec) {
    m.listener.reset();
    m.ioc.reset();
    return "cannot listen on " + address + ": " + ec.message();
  }
  m.port = m.listener->port();
  m.listener->accept();
  m.work.emplace(m.ioc->get_executor());
  for (std::size_t i = 0; i < threads; ++i) {
    m.threads.emplace_back([&m] {
      // A handler that throws (out of memory) ends its connection, not the server.
      while (true) {
        try {
          m.ioc->run();
          return;
        } catch (...) {
          bump(m.ctx.counters.handler_errors);
        }
      }
    });
  }
  return {};
}

void HttpServer::on_tick() {
  Impl& m = *impl_;
  if (!m.ioc) return;
  auto frames = std::make_shared<const TickFrames>(m.ctx.backend.current());
  m.ctx.set_latest(frames);
  for (const auto& session : m.ctx.live_sessions())
    session->push(frames);
}

void HttpServer::stop() {
  Impl& m = *impl_;
  if (!m.ioc) return;
  m.work.reset();
  m.ioc->stop();
  for (std::thread& t : m.threads)
    t.join();
  m.threads.clear();
  m.listener.reset();
  // Destroying the io_context destroys every pending handler and with them
  // every session and socket.
  m.ioc.reset();
  m.ctx.set_latest(nullptr);
  m.ctx.live_sessions();
}

std::string HttpServer::reload_tls() {
  Impl& m = *impl_;
  if (!m.ctx.tls) return "the API is not served over TLS: no certificate to reload";
  std::string error = m.certificate.load(m.ctx.config.tls_cert_file, m.ctx.config.tls_key_file);
  bump(error.empty() ? m.ctx.counters.tls_reloads : m.ctx.counters.tls_reload_failures);
  return error;
}

std::uint16_t HttpServer::port() const {
  return impl_->port;
}

ServeStats HttpServer::stats() const {
  return impl_->ctx.counters.load();
}

}  // namespace stallwatch::collector
