// SPDX-License-Identifier: MIT
#include "sessions.h"

#include <algorithm>
#include <boost/beast/websocket/ssl.hpp>
#include <chrono>
#include <string_view>
#include <type_traits>

#include "api_json.h"
#include "client_message.h"
#include "serve/snapshot_json.h"

namespace stallwatch::collector::detail {
namespace {

constexpr std::size_t kFirstReadBytes = 4096;
constexpr std::size_t kMaxDrainBytes = 256 * 1024;
constexpr std::chrono::milliseconds kMaxLinger{1000};
constexpr std::string_view kServerName = "stallwatchd";

std::string_view view(beast::string_view s) {
  return {s.data(), s.size()};
}
beast::string_view bview(std::string_view s) {
  return {s.data(), s.size()};
}

const std::shared_ptr<const std::string>& empty_part() {
  static const auto kEmpty = std::make_shared<const std::string>();
  return kEmpty;
}

bool is_http_parse_error(const beast::error_code& ec) {
  return ec.category() == beast::error_code(http::error::bad_version).category();
}

template <class Stream>
constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

template <class Stream>
Stream open_stream(tcp::socket&& socket, ServerContext& ctx) {
  if constexpr (kTls<Stream>) {
    return Stream(std::move(socket), *ctx.tls);
  } else {
    return Stream(std::move(socket));
  }
}

}  // namespace

void ServerContext::add_session(const std::shared_ptr<StreamSession>& session) {
  const std::lock_guard lock(mutex_);
  sessions_.push_back(session);
}

std::vector<std::shared_ptr<StreamSession>> ServerContext::live_sessions() {
  std::vector<std::shared_ptr<StreamSession>> live;
  const std::lock_guard lock(mutex_);
  live.reserve(sessions_.size());
  std::erase_if(sessions_, [&live](const std::weak_ptr<StreamSession>& weak) {
    auto s = weak.lock();
    if (!s) return true;
    live.push_back(std::move(s));
    return false;
  });
  return live;
}

void ServerContext::set_latest(std::shared_ptr<const TickFrames> frames) {
  const std::lock_guard lock(mutex_);
  latest_ = std::move(frames);
}

std::shared_ptr<const TickFrames> ServerContext::latest() {
  const std::lock_guard lock(mutex_);
  return latest_;
}

template <class Stream>
HttpSession<Stream>::HttpSession(tcp::socket&& socket, ServerContext& ctx, ConnectionSlot slot)
    : stream_(open_stream<Stream>(std::move(socket), ctx)), ctx_(ctx), slot_(std::move(slot)) {}

template <class Stream>
void HttpSession<Stream>::run() {
  if constexpr (kTls<Stream>) {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      beast::get_lowest_layer(self->stream_).expires_after(self->ctx_.config.read_timeout);
      self->stream_.async_handshake(net::ssl::stream_base::server,
                                    beast::bind_front_handler(&HttpSession::on_handshake, self));
    });
  } else {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&HttpSession::await_request, this->shared_from_this()));
  }
}

template <class Stream>
void HttpSession<Stream>::evict() {
  net::post(stream_.get_executor(), [self = this->shared_from_this()] {
    beast::error_code ignored;
    self->socket().close(ignored);
  });
}

// A failed or timed-out handshake (a plain-HTTP client, a client that does
// not trust the certificate) ends the connection.
template <class Stream>
void HttpSession<Stream>::on_handshake(beast::error_code ec) {
  if (ec) {
    if (ec == beast::error::timeout) bump(ctx_.counters.timeouts);
    socket().close(ec);
    return;
  }
  await_request();
}

// Waits up to idle_timeout for the first bytes of the next request, so that
// read_timeout bounds only the time to receive a request, not keep-alive. A
// new connection has only read_timeout to start its first request: a flood
// of connections that never send anything holds the connection slots no
// longer than slow clients do.
template <class Stream>
void HttpSession<Stream>::await_request() {
  if (buffer_.size() > 0) {
    read_request();
    return;
  }
  beast::get_lowest_layer(stream_).expires_after(answered_ ? ctx_.config.idle_timeout
                                                           : ctx_.config.read_timeout);
  ctx_.idle.enter(this->shared_from_this());
  stream_.async_read_some(
      buffer_.prepare(kFirstReadBytes),
      beast::bind_front_handler(&HttpSession::on_first_bytes, this->shared_from_this()));
}

template <class Stream>
void HttpSession<Stream>::on_first_bytes(beast::error_code ec, std::size_t n) {
  // Evicted: closed (or about to be) by evict(), even if bytes arrived meanwhile.
  const bool evicted = !ctx_.idle.leave(*this);
  if (ec || evicted) {
    if (ec == beast::error::timeout && !evicted) bump(ctx_.counters.timeouts);
    beast::error_code ignored;
    socket().close(ignored);
    return;
  }
  buffer_.commit(n);
  read_request();
}

template <class Stream>
void HttpSession<Stream>::read_request() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(ctx_.config.max_header_bytes));
  parser_->body_limit(ctx_.config.max_body_bytes);
  beast::get_lowest_layer(stream_).expires_after(ctx_.config.read_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&HttpSession::on_read, this->shared_from_this()));
}

template <class Stream>
void HttpSession<Stream>::on_read(beast::error_code ec, std::size_t) {
  if (ec == http::error::end_of_stream) {
    if constexpr (kTls<Stream>) {
      linger_close();
    } else {
      socket().shutdown(tcp::socket::shutdown_send, ec);
      socket().close(ec);
    }
    return;
  }
  if (ec == beast::error::timeout) {
    bump(ctx_.counters.timeouts);
    socket().close(ec);
    return;
  }
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    bump(ctx_.counters.bad_requests);
    send_error(431, "request header larger than " + std::to_string(ctx_.config.max_header_bytes) +
                        " bytes");
    return;
  }
  if (ec == http::error::body_limit) {
    bump(ctx_.counters.bad_requests);
    send_error(413,
               "request body larger than " + std::to_string(ctx_.config.max_body_bytes) + " bytes");
    return;
  }
  if (ec && is_http_parse_error(ec)) {
    bump(ctx_.counters.bad_requests);
    send_error(400, "malformed HTTP request: " + ec.message());
    return;
  }
  if (ec) {
    socket().close(ec);
    return;
  }
  bump(ctx_.counters.requests);
  http::request<http::string_body> request = parser_->release();
  parser_.reset();
  if (websocket::is_upgrade(request) && ctx_.router.is_stream(view(request.target()))) {
    const HttpRequest r{view(request.method_string()), view(request.target()),
                        view(request[http::field::authorization])};
    if (!ctx_.router.authorized(r)) {
      HttpResponse denied = Router::error(401, "missing or wrong bearer token");
      denied.headers.emplace_back("WWW-Authenticate", "Bearer");
      send(std::move(denied), false, false, request.version());
      return;
    }
    beast::get_lowest_layer(stream_).expires_never();
    if constexpr (kTls<Stream>) {
      std::make_shared<WsSession<Stream>>(std::move(stream_), ctx_, std::move(slot_))
          ->run(std::move(request));
    } else {
      std::make_shared<WsSession<Stream>>(Stream(stream_.release_socket()), ctx_, std::move(slot_))
          ->run(std::move(request));
    }
    return;
  }
  respond(request);
}

template <class Stream>
void HttpSession<Stream>::respond(const http::request<http::string_body>& request) {
  const HttpRequest r{view(request.method_string()), view(request.target()),
                      view(request[http::field::authorization])};
  send(ctx_.router.handle(r), request.method() == http::verb::head, request.keep_alive(),
       request.version());
}

template <class Stream>
void HttpSession<Stream>::send_error(unsigned status, std::string_view message) {
  send(Router::error(status, message), false, false, 11);
}

template <class Stream>
void HttpSession<Stream>::send(HttpResponse response, bool head, bool keep_alive,
                               unsigned version) {
  const auto fill = [&](auto& msg) {
    msg.set(http::field::server, bview(kServerName));
    msg.set(http::field::content_type, response.content_type);
    msg.set(http::field::cache_control, response.no_store ? "no-store" : "no-cache");
    for (const auto& [name, value] : response.headers)
      msg.set(bview(name), value);
    msg.keep_alive(keep_alive);
  };
  const auto status = static_cast<http::status>(response.status);
  const bool close = !keep_alive;
  beast::get_lowest_layer(stream_).expires_after(ctx_.config.write_timeout);
  if (head) {
    auto msg = std::make_shared<http::response<http::empty_body>>(status, version);
    fill(*msg);
    msg->content_length(response.body.size());
    response_ = msg;
    http::async_write(
        stream_, *msg,
        beast::bind_front_handler(&HttpSession::on_write, this->shared_from_this(), close));
  } else {
    auto msg = std::make_shared<http::response<http::string_body>>(status, version);
    fill(*msg);
    msg->body() = std::move(response.body);
    msg->prepare_payload();
    response_ = msg;
    http::async_write(
        stream_, *msg,
        beast::bind_front_handler(&HttpSession::on_write, this->shared_from_this(), close));
  }
}

template <class Stream>
void HttpSession<Stream>::on_write(bool close, beast::error_code ec, std::size_t) {
  response_.reset();
  if (ec) {
    if (ec == beast::error::timeout) bump(ctx_.counters.timeouts);
    socket().close(ec);
    return;
  }
  if (close) {
    linger_close();
    return;
  }
  answered_ = true;
  await_request();
}

// Half-closes and reads what the client still sends for a short while, so
// that the error response is not lost to a reset on close. Over TLS: sends
// close_notify and waits as long for the client's.
template <class Stream>
void HttpSession<Stream>::linger_close() {
  if constexpr (kTls<Stream>) {
    beast::get_lowest_layer(stream_).expires_after(std::min(kMaxLinger, ctx_.config.read_timeout));
    stream_.async_shutdown(
        [self = this->shared_from_this()](beast::error_code ec) { self->socket().close(ec); });
    return;
  }
  beast::error_code ec;
  socket().shutdown(tcp::socket::shutdown_send, ec);
  beast::get_lowest_layer(stream_).expires_after(std::min(kMaxLinger, ctx_.config.read_timeout));
  stream_.async_read_some(net::buffer(drain_), beast::bind_front_handler(&HttpSession::on_drain,
                                                                         this->shared_from_this()));
}

template <class Stream>
void HttpSession<Stream>::on_drain(beast::error_code ec, std::size_t n) {
  drained_ += n;
  if (ec || drained_ > kMaxDrainBytes) {
    socket().close(ec);
    return;
  }
  stream_.async_read_some(net::buffer(drain_), beast::bind_front_handler(&HttpSession::on_drain,
                                                                         this->shared_from_this()));
}

template <class Stream>
WsSession<Stream>::WsSession(Stream&& stream, ServerContext& ctx, ConnectionSlot slot)
    : ws_(std::move(stream)), ctx_(ctx), slot_(std::move(slot)) {}

template <class Stream>
WsSession<Stream>::~WsSession() {
  if (open_) ctx_.counters.websocket_sessions.fetch_sub(1, std::memory_order_relaxed);
}

template <class Stream>
void WsSession<Stream>::run(http::request<http::string_body> request) {
  request_ = std::move(request);
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = ctx_.config.read_timeout;
  timeouts.idle_timeout = ctx_.config.idle_timeout;
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(http::field::server, bview(kServerName)); }));
  ws_.read_message_max(ctx_.config.max_ws_message_bytes);
  ws_.text(true);
  net::dispatch(ws_.get_executor(), [self = this->shared_from_this()] {
    self->ws_.async_accept(self->request_, beast::bind_front_handler(&WsSession::on_accept, self));
  });
}

template <class Stream>
void WsSession<Stream>::on_accept(beast::error_code ec) {
  request_ = {};
  if (ec) return;
  open_ = true;
  bump(ctx_.counters.websocket_sessions);
  ctx_.add_session(this->shared_from_this());
  const auto state = ctx_.backend.current();
  static const Snapshot kEmpty;
  const SnapshotJson view(state->snapshot ? *state->snapshot : kEmpty);
  // The hello goes first; a tick pushed during the handshake waits in pending_.
  auto pending = std::move(pending_);
  pending_.reset();
  write(Parts{std::make_shared<const std::string>(hello_json(*state, view)), empty_part(),
              empty_part()});
  pending_ = std::move(pending);
  read();
}

template <class Stream>
void WsSession<Stream>::push(std::shared_ptr<const TickFrames> frames) {
  net::post(ws_.get_executor(), [self = this->shared_from_this(), frames = std::move(frames)] {
    self->queue_tick(*frames);
  });
}

template <class Stream>
void WsSession<Stream>::queue_tick(const TickFrames& frames) {
  Parts parts{frames.head(), frames.job_detail(job_), TickFrames::tail()};
  if (!open_ || write_in_flight_) {
    if (pending_) bump(ctx_.counters.websocket_ticks_skipped);
    pending_ = std::move(parts);
    return;
  }
  write(std::move(parts));
}

template <class Stream>
void WsSession<Stream>::write(Parts parts) {
  writing_ = std::move(parts);
  write_in_flight_ = true;
  const std::array<net::const_buffer, 3> buffers{
      net::buffer(*writing_[0]), net::buffer(*writing_[1]), net::buffer(*writing_[2])};
  ws_.async_write(buffers,
                  beast::bind_front_handler(&WsSession::on_write, this->shared_from_this()));
}

template <class Stream>
void WsSession<Stream>::on_write(beast::error_code ec, std::size_t) {
  write_in_flight_ = false;
  writing_ = {};
  if (ec) return;
  bump(ctx_.counters.websocket_messages_sent);
  if (pending_) {
    Parts next = std::move(*pending_);
    pending_.reset();
    write(std::move(next));
  }
}

template <class Stream>
void WsSession<Stream>::read() {
  ws_.async_read(read_buffer_,
                 beast::bind_front_handler(&WsSession::on_read, this->shared_from_this()));
}

template <class Stream>
void WsSession<Stream>::on_read(beast::error_code ec, std::size_t) {
  if (ec == websocket::error::message_too_big) bump(ctx_.counters.websocket_messages_rejected);
  if (ec) return;
  const std::string text = beast::buffers_to_string(read_buffer_.data());
  read_buffer_.consume(read_buffer_.size());
  const auto message = ws_.got_text() ? parse_client_message(text) : std::nullopt;
  if (!message) {
    bump(ctx_.counters.websocket_messages_rejected);
  } else {
    job_ = message->job;
    if (const auto latest = ctx_.latest()) queue_tick(*latest);
  }
  read();
}

template class HttpSession<PlainStream>;
template class HttpSession<TlsStream>;
template class WsSession<PlainStream>;
template class WsSession<TlsStream>;

}  // namespace stallwatch::collector::detail
