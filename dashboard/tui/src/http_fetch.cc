#include "http_fetch.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>

#include "api_parse.h"
#include "stallwatch/version.h"

namespace stallwatch::tui {
namespace {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

std::string seconds_text(std::chrono::milliseconds ms) {
  const auto s = ms.count() / 1000;
  return s >= 1 ? std::to_string(s) + " s" : std::to_string(ms.count()) + " ms";
}

std::string transport_error(const beast::error_code& ec, const FetchOptions& options) {
  if (ec == beast::error::timeout) return "no answer within " + seconds_text(options.timeout);
  if (ec == net::error::connection_refused) return "connection refused";
  if (ec == http::error::end_of_stream || ec == net::error::eof)
    return "connection closed before an answer";
  if (ec == http::error::body_limit) return "answer larger than the client's limit";
  std::string message = ec.message();
  if (!message.empty()) message.front() = static_cast<char>(std::tolower(message.front()));
  return message;
}

}  // namespace

HttpResult http_fetch(const EndpointUrl& url, std::string_view path, const FetchOptions& options) {
  HttpResult result;
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  const auto endpoints = resolver.resolve(url.host, url.port, ec);
  if (ec) {
    result.error = "cannot resolve host '" + url.host + "'";
    return result;
  }

  beast::tcp_stream stream(ioc);
  http::request<http::empty_body> request{http::verb::get, url.target(path), 11};
  request.set(http::field::host, url.host_header());
  request.set(http::field::user_agent, std::string("stallwatch-top/") + kVersion);
  request.set(http::field::accept, "application/json");
  request.set(http::field::connection, "close");
  if (!options.token.empty()) request.set(http::field::authorization, "Bearer " + options.token);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(options.body_limit);

  const auto on_error = [&](const beast::error_code& e) {
    result.error = transport_error(e, options);
  };
  const auto on_read = [&](beast::error_code e, std::size_t) {
    if (e) return on_error(e);
    result.status = static_cast<int>(parser.get().result_int());
    result.body = std::move(parser.get().body());
  };
  const auto on_write = [&](beast::error_code e, std::size_t) {
    if (e) return on_error(e);
    http::async_read(stream, buffer, parser, on_read);
  };
  const auto on_connect = [&](beast::error_code e, const tcp::endpoint&) {
    if (e) return on_error(e);
    http::async_write(stream, request, on_write);
  };
  stream.expires_after(options.timeout);
  stream.async_connect(endpoints, on_connect);
  ioc.run();
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  if (result.status == 0 && result.error.empty()) result.error = "no answer";
  return result;
}

std::string describe_failure(const HttpResult& result) {
  if (!result.answered()) return result.error;
  std::string text = "HTTP " + std::to_string(result.status);
  const std::string api_error = api_error_text(result.body);
  if (!api_error.empty()) text += ": " + api_error;
  return text;
}

}  // namespace stallwatch::tui
