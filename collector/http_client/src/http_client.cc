// SPDX-License-Identifier: MIT
#include "http_client/http_client.h"

#include <curl/curl.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace stallwatch::collector {
namespace {

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct ListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// What the write callback fills: the body, until the limit.
struct Sink {
  std::string body;
  std::size_t limit = 0;
  bool over_limit = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t n = size * count;
  if (sink->body.size() + n > sink->limit) {
    sink->over_limit = true;
    return 0;  // libcurl aborts the transfer with CURLE_WRITE_ERROR
  }
  sink->body.append(data, n);
  return n;
}

void init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string duration_text(std::chrono::milliseconds ms) {
  return ms.count() >= 1000 && ms.count() % 1000 == 0 ? std::to_string(ms.count() / 1000) + " s"
                                                      : std::to_string(ms.count()) + " ms";
}

bool is_tls_error(CURLcode rc) {
  switch (rc) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
      return true;
    default:
      return false;
  }
}

// A sentence for the user: libcurl's detail where it has one.
std::string transport_error(CURLcode rc, CURL* curl, const char* detail, const HttpRequest& req,
                            const Sink& sink) {
  std::string text = detail[0] != '\0' ? detail : curl_easy_strerror(rc);
  // "Failed to connect..." reads on after a colon as "failed to connect...";
  // "SSL: ..." keeps its capitals.
  if (text.size() > 1 && std::islower(static_cast<unsigned char>(text[1])))
    text.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(text.front())));
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "cannot resolve host: " + text;
    case CURLE_COULDNT_CONNECT: {
      long os_errno = 0;
      curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
      if (os_errno == ECONNREFUSED) return "connection refused";
      return "cannot connect: " + text;
    }
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out: no answer within " + duration_text(req.timeout);
    case CURLE_GOT_NOTHING:
      return "connection closed before an answer";
    case CURLE_WRITE_ERROR:
      if (sink.over_limit) return "answer larger than the client's limit";
      return text;
    case CURLE_PEER_FAILED_VERIFICATION:
      return "TLS: the server's certificate is not trusted: " + text;
    case CURLE_SSL_CACERT_BADFILE:
      return "TLS: cannot use ca_file '" + req.tls.ca_file + "': " + text;
    case CURLE_SSL_CERTPROBLEM:
      return "TLS: cannot use the client certificate: " + text;
    default:
      return is_tls_error(rc) ? "TLS: " + text : text;
  }
}

// The environment's proxy applies to other hosts only: loopback (the local
// daemon, a local Alertmanager) is always reached directly, whatever
// no_proxy says, and the user's own no_proxy entries are kept.
const std::string& no_proxy_list() {
  static const std::string list = [] {
    std::string out = "localhost,127.0.0.0/8,::1";
    for (const char* name : {"no_proxy", "NO_PROXY"}) {
      if (const char* v = std::getenv(name); v != nullptr && *v != '\0') {
        out += ',';
        out += v;
        break;
      }
    }
    return out;
  }();
  return list;
}

}  // namespace

struct HttpClient::Handle {
  std::unique_ptr<CURL, EasyDeleter> curl;
};

HttpClient::HttpClient() : handle_(std::make_unique<Handle>()) {
  init_once();
  handle_->curl.reset(curl_easy_init());
}

HttpClient::~HttpClient() = default;

HttpResponse HttpClient::request(const HttpRequest& request) {
  HttpResponse out;
  if (!handle_->curl) {
    out.error = "cannot start an HTTP request (libcurl)";
    return out;
  }
  CURL* c = handle_->curl.get();
  // Back to the defaults, keeping the connection cache and TLS sessions.
  curl_easy_reset(c);
  char detail[CURL_ERROR_SIZE] = {};
  Sink sink;
  sink.limit = request.body_limit;

  curl_slist* raw_headers = nullptr;
  for (const auto& [name, value] : request.headers)
    raw_headers = curl_slist_append(raw_headers, (name + ": " + value).c_str());
  // No "Expect: 100-continue" round trip before larger bodies.
  raw_headers = curl_slist_append(raw_headers, "Expect:");
  std::unique_ptr<curl_slist, ListDeleter> headers(raw_headers);

  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_NOPROXY, no_proxy_list().c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(c, CURLOPT_USERAGENT, request.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!request.tls.ca_file.empty())
    curl_easy_setopt(c, CURLOPT_CAINFO, request.tls.ca_file.c_str());
  if (!request.tls.client_cert.empty())
    curl_easy_setopt(c, CURLOPT_SSLCERT, request.tls.client_cert.c_str());
  if (!request.tls.client_key.empty())
    curl_easy_setopt(c, CURLOPT_SSLKEY, request.tls.client_key.c_str());
  if (request.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
  } else if (request.method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  const CURLcode rc = curl_easy_perform(c);
  // The error buffer is on this stack frame: libcurl must not keep it.
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);
  long new_connections = 0;
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &new_connections);
  connections_opened_ += static_cast<std::uint64_t>(new_connections);
  if (rc != CURLE_OK) {
    out.error = transport_error(rc, c, detail, request, sink);
    out.tls_failure = is_tls_error(rc);
    return out;
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  out.status = static_cast<int>(status);
  out.body = std::move(sink.body);
  if (out.status == 0) out.error = "no answer";
  return out;
}

HttpResponse http_request(const HttpRequest& request) {
  thread_local HttpClient client;
  return client.request(request);
}

}  // namespace stallwatch::collector
