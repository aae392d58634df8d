// SPDX-License-Identifier: MIT
#include "stream_client.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <cctype>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <type_traits>
#include <variant>

#include "api_parse.h"
#include "stallwatch/version.h"

namespace stallwatch::tui {
namespace {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;
namespace ssl = boost::asio::ssl;
using Ws = websocket::stream<beast::tcp_stream>;
using Wss = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

constexpr auto kFirstBackoff = std::chrono::milliseconds(250);
constexpr auto kMaxBackoff = std::chrono::milliseconds(5000);
constexpr auto kConnectTimeout = std::chrono::seconds(5);
// The daemon sends a tick every tick_ms (500 ms by default) and pings; a link
// silent for this long is dead.
constexpr auto kIdleTimeout = std::chrono::seconds(10);
constexpr std::size_t kMaxMessageBytes = std::size_t{64} << 20;

std::string subscribe_message(const std::optional<std::string>& job) {
  nlohmann::json message = {{"type", "subscribe"}, {"job", nullptr}};
  if (job) message["job"] = *job;
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string describe(const beast::error_code& ec) {
  if (ec == beast::error::timeout) return "no answer (timed out)";
  if (ec == net::error::connection_refused) return "connection refused";
  if (ec == websocket::error::closed || ec == net::error::eof)
    return "the collector closed the connection";
  std::string message = ec.message();
  if (!message.empty()) message.front() = static_cast<char>(std::tolower(message.front()));
  if (ec.category() == net::error::get_ssl_category()) message = "TLS: " + message;
  return message;
}

// The client side of wss://: verifies the peer against `ca_file` or the
// system's CAs. Empty `error` when the CA bundle loaded.
std::shared_ptr<ssl::context> client_tls_context(const std::string& ca_file, std::string& error) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  ctx->set_verify_mode(ssl::verify_peer);
  beast::error_code ec;
  if (ca_file.empty()) {
    ctx->set_default_verify_paths(ec);
  } else {
    ctx->load_verify_file(ca_file, ec);
  }
  if (ec) error = "cannot load CA bundle '" + ca_file + "': " + ec.message();
  return ctx;
}

}  // namespace

struct StreamClient::Impl {
  Impl(EndpointUrl u, std::string t, const std::string& ca_file)
      : url(std::move(u)), token(std::move(t)) {
    if (url.https) tls = client_tls_context(ca_file, tls_error);
  }

  void connect();
  template <class S>
  void connect_tcp(std::uint64_t gen, const std::shared_ptr<S>& socket);
  void handshake_tls(std::uint64_t gen, const std::shared_ptr<Wss>& socket);
  template <class S>
  void on_connected(std::uint64_t gen, const std::shared_ptr<S>& socket);
  template <class S>
  void read(std::uint64_t gen, const std::shared_ptr<S>& socket);
  void send(std::string text);
  void write_next();
  void fail(std::uint64_t gen, const std::string& why);
  void deliver(std::string_view text);

  const EndpointUrl url;
  const std::string token;
  std::shared_ptr<ssl::context> tls;  // https only
  std::string tls_error;              // the CA bundle did not load
  net::io_context ioc;
  net::executor_work_guard<net::io_context::executor_type> work{ioc.get_executor()};
  tcp::resolver resolver{ioc};
  net::steady_timer retry_timer{ioc};
  std::thread thread;

  // Network thread only.
  std::variant<std::shared_ptr<Ws>, std::shared_ptr<Wss>> ws;
  std::uint64_t generation = 0;  // bumps on every (re)connect attempt; stale handlers return
  bool open = false;
  beast::flat_buffer buffer;
  websocket::response_type handshake_response;
  std::deque<std::string> outbox;
  bool writing = false;
  std::optional<std::string> job;
  std::chrono::milliseconds backoff = kFirstBackoff;

  // Shared with the UI thread.
  mutable std::mutex mutex;
  StreamInbox inbox;
  LinkStatus link;
};

void StreamClient::Impl::connect() {
  const std::uint64_t gen = ++generation;
  open = false;
  writing = false;
  outbox.clear();
  buffer.clear();
  if (!tls_error.empty()) return fail(gen, tls_error);
  if (tls) {
    auto socket = std::make_shared<Wss>(ioc, *tls);
    ws = socket;
    connect_tcp(gen, socket);
  } else {
    auto socket = std::make_shared<Ws>(ioc);
    ws = socket;
    connect_tcp(gen, socket);
  }
}

template <class S>
void StreamClient::Impl::connect_tcp(std::uint64_t gen, const std::shared_ptr<S>& socket) {
  resolver.async_resolve(
      url.host, url.port,
      [this, gen, socket](beast::error_code ec, tcp::resolver::results_type results) {
        if (gen != generation) return;
        if (ec) return fail(gen, "cannot resolve host '" + url.host + "'");
        beast::get_lowest_layer(*socket).expires_after(kConnectTimeout);
        beast::get_lowest_layer(*socket).async_connect(
            results, [this, gen, socket](beast::error_code e, const tcp::endpoint&) {
              if (gen != generation) return;
              if (e) return fail(gen, describe(e));
              if constexpr (std::is_same_v<S, Wss>) {
                handshake_tls(gen, socket);
              } else {
                on_connected(gen, socket);
              }
            });
      });
}

// Names the host for SNI and checks that the certificate is for it (a name
// or an IP address), under the connect timeout.
void StreamClient::Impl::handshake_tls(std::uint64_t gen, const std::shared_ptr<Wss>& socket) {
  auto& stream = socket->next_layer();
  beast::error_code not_an_address;
  net::ip::make_address(url.host, not_an_address);
  // SSL_set_tlsext_host_name() without its C-style cast; SNI names hosts, not addresses.
  if (not_an_address &&
      SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
               const_cast<char*>(url.host.c_str())) != 1) {
    return fail(gen, "TLS: cannot set the server name '" + url.host + "'");
  }
  stream.set_verify_callback(ssl::host_name_verification(url.host));
  stream.async_handshake(ssl::stream_base::client, [this, gen, socket](beast::error_code ec) {
    if (gen != generation) return;
    if (ec) return fail(gen, describe(ec));
    on_connected(gen, socket);
  });
}

template <class S>
void StreamClient::Impl::on_connected(std::uint64_t gen, const std::shared_ptr<S>& socket) {
  beast::get_lowest_layer(*socket).expires_never();
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = kConnectTimeout;
  timeouts.idle_timeout = kIdleTimeout;
  timeouts.keep_alive_pings = true;
  socket->set_option(timeouts);
  const std::string bearer = token;
  socket->set_option(websocket::stream_base::decorator([bearer](websocket::request_type& request) {
    request.set(http::field::user_agent, std::string("stallwatch-top/") + kVersion);
    if (!bearer.empty()) request.set(http::field::authorization, "Bearer " + bearer);
  }));
  socket->read_message_max(kMaxMessageBytes);
  handshake_response = {};
  socket->async_handshake(handshake_response, url.host_header(), url.target("/api/v1/stream"),
                          [this, gen, socket](beast::error_code ec) {
                            if (gen != generation) return;
                            if (ec) {
                              const unsigned status = handshake_response.result_int();
                              if (status == 401) {
                                return fail(gen,
                                            "HTTP 401: missing or wrong bearer token "
                                            "(--token or STALLWATCH_TOKEN)");
                              }
                              if (status != 0 && status != 101) {
                                return fail(
                                    gen, "HTTP " + std::to_string(status) + " from /api/v1/stream");
                              }
                              return fail(gen, describe(ec));
                            }
                            open = true;
                            socket->text(true);
                            {
                              const std::lock_guard lock(mutex);
                              link.state = LinkState::kLive;
                              link.error.clear();
                              ++link.connections;
                            }
                            if (job) send(subscribe_message(job));
                            read(gen, socket);
                          });
}

template <class S>
void StreamClient::Impl::read(std::uint64_t gen, const std::shared_ptr<S>& socket) {
  socket->async_read(buffer, [this, gen, socket](beast::error_code ec, std::size_t) {
    if (gen != generation) return;
    if (ec) return fail(gen, describe(ec));
    backoff = kFirstBackoff;
    const auto data = buffer.cdata();
    deliver(std::string_view(static_cast<const char*>(data.data()), data.size()));
    buffer.clear();
    read(gen, socket);
  });
}

void StreamClient::Impl::send(std::string text) {
  if (!open) return;
  outbox.push_back(std::move(text));
  if (!writing) write_next();
}

void StreamClient::Impl::write_next() {
  if (outbox.empty() || !open) {
    writing = false;
    return;
  }
  writing = true;
  const std::uint64_t gen = generation;
  std::visit(
      [this, gen](const auto& socket) {
        socket->async_write(net::buffer(outbox.front()),
                            [this, gen, socket](beast::error_code ec, std::size_t) {
                              if (gen != generation) return;
                              if (ec) return fail(gen, describe(ec));
                              outbox.pop_front();
                              write_next();
                            });
      },
      ws);
}

void StreamClient::Impl::fail(std::uint64_t gen, const std::string& why) {
  if (gen != generation) return;
  ++generation;
  open = false;
  std::visit(
      [](const auto& socket) {
        if (!socket) return;
        beast::error_code ignored;
        beast::get_lowest_layer(*socket).socket().close(ignored);
      },
      ws);
  {
    const std::lock_guard lock(mutex);
    link.state = link.connections == 0 && link.state == LinkState::kConnecting
                     ? LinkState::kConnecting
                     : LinkState::kReconnecting;
    link.error = why;
    link.retry_at = std::chrono::steady_clock::now() + backoff;
  }
  retry_timer.expires_after(backoff);
  backoff = std::min(backoff * 2, kMaxBackoff);
  retry_timer.async_wait([this](beast::error_code ec) {
    if (!ec) connect();
  });
}

void StreamClient::Impl::deliver(std::string_view text) {
  auto parsed = parse_stream_message(text);
  if (!parsed.ok()) return;
  const std::lock_guard lock(mutex);
  if (parsed.value->hello) inbox.hello = std::move(parsed.value->hello);
  if (parsed.value->tick) inbox.tick = std::move(parsed.value->tick);
  inbox.connection = link.connections;
}

StreamClient::StreamClient(EndpointUrl url, std::string token, std::string ca_file)
    : impl_(std::make_unique<Impl>(std::move(url), std::move(token), ca_file)) {}

StreamClient::~StreamClient() {
  stop();
}

void StreamClient::start() {
  if (impl_->thread.joinable()) return;
  net::post(impl_->ioc, [impl = impl_.get()] { impl->connect(); });
  impl_->thread = std::thread([impl = impl_.get()] {
    while (!impl->ioc.stopped()) {
      try {
        impl->ioc.run();
      } catch (const std::exception& e) {
        const std::lock_guard lock(impl->mutex);
        impl->link.error = std::string("stream client error: ") + e.what();
      }
    }
  });
}

void StreamClient::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->ioc.stop();
  impl_->thread.join();
}

void StreamClient::subscribe(std::optional<std::string> job) {
  net::post(impl_->ioc, [impl = impl_.get(), job = std::move(job)] {
    if (impl->job == job) return;
    impl->job = job;
    impl->send(subscribe_message(job));
  });
}

StreamInbox StreamClient::take() {
  const std::lock_guard lock(impl_->mutex);
  StreamInbox out = std::move(impl_->inbox);
  impl_->inbox = {};
  return out;
}

LinkStatus StreamClient::status() const {
  const std::lock_guard lock(impl_->mutex);
  return impl_->link;
}

}  // namespace stallwatch::tui
