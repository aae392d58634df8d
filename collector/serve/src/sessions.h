// SPDX-License-Identifier: MIT
#pragma once

// Private to collector/serve: the Boost.Beast connection classes. Included
// only by http_server.cc and sessions.cc.

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "idle_connections.h"
#include "router.h"
#include "serve/api_backend.h"
#include "serve/serve_config.h"
#include "serve/serve_stats.h"
#include "tick_frames.h"

namespace stallwatch::collector::detail {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

// The two transports a session runs on: plain TCP, or TLS over it.
using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// What the server needs of a live `/api/v1/stream` session, whatever its
// transport: push() may be called from any thread.
class StreamSession {
 public:
  virtual ~StreamSession() = default;
  virtual void push(std::shared_ptr<const TickFrames> frames) = 0;
};

// State shared by the listener and every session. Owned by HttpServer and
// outlives every session (the io_context, and with it every session, is
// destroyed first).
struct ServerContext {
  ServerContext(ServeConfig c, ApiBackend& b)
      : config(std::move(c)), backend(b), router(config, backend, counters) {}

  void add_session(const std::shared_ptr<StreamSession>& session);
  // Live sessions; forgets those that ended.
  std::vector<std::shared_ptr<StreamSession>> live_sessions();
  void set_latest(std::shared_ptr<const TickFrames> frames);
  std::shared_ptr<const TickFrames> latest();

  const ServeConfig config;
  ApiBackend& backend;
  ServeCounters counters;
  const Router router;
  IdleConnections idle;
  // Set by HttpServer::start() when the config names a certificate: every
  // connection then speaks TLS.
  std::shared_ptr<net::ssl::context> tls;

 private:
  std::mutex mutex_;
  std::vector<std::weak_ptr<StreamSession>> sessions_;
  std::shared_ptr<const TickFrames> latest_;
};

// Holds one of ServeConfig::max_connections while a connection is open.
class ConnectionSlot {
 public:
  explicit ConnectionSlot(ServeCounters& counters) : counters_(&counters) {
    bump(counters.connections_active);
  }
  ConnectionSlot(ConnectionSlot&& other) noexcept
      : counters_(std::exchange(other.counters_, nullptr)) {}
  ConnectionSlot& operator=(ConnectionSlot&&) = delete;
  ~ConnectionSlot() {
    if (counters_ != nullptr) counters_->connections_active.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  ServeCounters* counters_;
};

// One HTTP/1.1 connection: reads requests within the size limits and
// timeouts, answers through the Router, and hands a WebSocket upgrade of
// /api/v1/stream to a WsSession. Runs on its own strand. Over TLS, the
// handshake must finish within read_timeout, and a closing connection sends
// close_notify. While it waits for a request it is listed in
// ServerContext::idle, and the listener may evict it (close it) to admit a
// new connection at the limit. Instantiated for PlainStream and TlsStream
// only.
template <class Stream>
class HttpSession : public IdleConnections::Member,
                    public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  HttpSession(tcp::socket&& socket, ServerContext& ctx, ConnectionSlot slot);
  void run();
  void evict() override;

 private:
  void on_handshake(beast::error_code ec);
  tcp::socket& socket() { return beast::get_lowest_layer(stream_).socket(); }
  void await_request();
  void on_first_bytes(beast::error_code ec, std::size_t n);
  void read_request();
  void on_read(beast::error_code ec, std::size_t n);
  void respond(const http::request<http::string_body>& request);
  void send(HttpResponse response, bool head, bool keep_alive, unsigned version);
  void send_error(unsigned status, std::string_view message);
  void on_write(bool close, beast::error_code ec, std::size_t n);
  void linger_close();
  void on_drain(beast::error_code ec, std::size_t n);

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<void> response_;  // the message being written
  std::array<char, 2048> drain_{};
  std::size_t drained_ = 0;
  bool answered_ = false;  // a response was sent: waits for the next request are keep-alive
  ServerContext& ctx_;
  ConnectionSlot slot_;
};

// One `/api/v1/stream` WebSocket: a hello, then a tick per on_tick(), with
// the subscribed job's detail. At most one message waits behind the one
// being written; a newer tick replaces it (counted as skipped). Runs on its
// own strand; push() may be called from any thread. Instantiated for
// PlainStream and TlsStream only.
template <class Stream>
class WsSession : public StreamSession, public std::enable_shared_from_this<WsSession<Stream>> {
 public:
  WsSession(Stream&& stream, ServerContext& ctx, ConnectionSlot slot);
  ~WsSession() override;
  void run(http::request<http::string_body> request);
  void push(std::shared_ptr<const TickFrames> frames) override;

 private:
  using Parts = std::array<std::shared_ptr<const std::string>, 3>;

  void on_accept(beast::error_code ec);
  void read();
  void on_read(beast::error_code ec, std::size_t n);
  void queue_tick(const TickFrames& frames);
  void write(Parts parts);
  void on_write(beast::error_code ec, std::size_t n);

  websocket::stream<Stream> ws_;
  beast::flat_buffer read_buffer_;
  http::request<http::string_body> request_;
  ServerContext& ctx_;
  ConnectionSlot slot_;
  std::optional<std::string> job_;
  std::optional<Parts> pending_;
  Parts writing_;
  bool write_in_flight_ = false;
  bool open_ = false;
};

}  // namespace stallwatch::collector::detail
