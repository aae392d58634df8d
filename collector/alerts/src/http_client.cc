#include "http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace stallwatch::collector {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::size_t kMaxResponseBody = 64 * 1024;

// The request's state while the io_context runs its chain of handlers.
struct Exchange {
  explicit Exchange(asio::io_context& io) : stream(io) {}

  beast::tcp_stream stream;
  http::request<http::string_body> request;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  HttpPostResult result;

  void fail(std::string_view what, const beast::error_code& ec) {
    result.error = std::string(what) + ": " +
                   (ec == beast::error::timeout ? std::string("timed out") : ec.message());
  }
};

}  // namespace

HttpPostResult http_post(const HttpUrl& url, std::string_view content_type, std::string body,
                         const AlertLabels& headers, std::chrono::milliseconds timeout) {
  try {
    asio::io_context io;
    tcp::resolver resolver(io);
    beast::error_code ec;
    const auto endpoints = resolver.resolve(url.host, url.port, ec);
    if (ec) return HttpPostResult{0, "cannot resolve " + url.host + ": " + ec.message(), {}};

    Exchange x(io);
    x.request.method(http::verb::post);
    x.request.target(url.target);
    x.request.version(11);
    const bool ipv6 = url.host.find(':') != std::string::npos;
    x.request.set(http::field::host, (ipv6 ? "[" + url.host + "]" : url.host) + ":" + url.port);
    x.request.set(http::field::user_agent, "stallwatchd");
    x.request.set(http::field::content_type, std::string(content_type));
    x.request.set(http::field::connection, "close");
    for (const auto& [name, value] : headers)
      x.request.set(name, value);
    x.request.body() = std::move(body);
    x.request.prepare_payload();
    x.parser.body_limit(kMaxResponseBody);

    x.stream.expires_after(timeout);
    x.stream.async_connect(
        endpoints, [&x](const beast::error_code& connected, const tcp::endpoint&) {
          if (connected) return x.fail("connect", connected);
          http::async_write(x.stream, x.request, [&x](const beast::error_code& sent, std::size_t) {
            if (sent) return x.fail("send", sent);
            http::async_read(x.stream, x.buffer, x.parser,
                             [&x](const beast::error_code& received, std::size_t) {
                               if (received) return x.fail("receive", received);
                               x.result.status = static_cast<int>(x.parser.get().result_int());
                               x.result.body = std::move(x.parser.get().body());
                               if (x.result.status < 200 || x.result.status > 299) {
                                 x.result.error = "HTTP " + std::to_string(x.result.status) + ": " +
                                                  x.result.body.substr(0, 200);
                               }
                             });
          });
        });
    io.run();
    beast::error_code ignored;
    x.stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    return std::move(x.result);
  } catch (const std::exception& e) {
    return HttpPostResult{0, std::string("HTTP client error: ") + e.what(), {}};
  }
}

}  // namespace stallwatch::collector
