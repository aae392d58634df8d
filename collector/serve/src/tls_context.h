// SPDX-License-Identifier: MIT
#pragma once

// Private to collector/serve: the server's OpenSSL context, made from the
// PEM files of ServeConfig. TLS 1.2 and newer only.

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace stallwatch::collector::detail {

// The context for the certificate chain and key, or nullptr with `error`
// naming the file at fault.
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(const std::string& cert_file,
                                                                   const std::string& key_file,
                                                                   std::string& error);

// The certificate and key the server hands each new TLS handshake, which
// load() may replace while connections are served: a handshake that starts
// after load() returned gets the new pair, one in progress or done keeps
// the pair it got. attach() installs it on the server's context (whose
// own pair is only a fallback) and must outlive that context's handshakes.
// Thread-safe: load() from any thread, the handshakes on the io threads.
class ServerCertificate {
 public:
  // Loads and checks the pair as make_server_tls_context does; on failure
  // keeps the current one. Returns "" or why the pair was refused.
  std::string load(const std::string& cert_file, const std::string& key_file);
  void attach(boost::asio::ssl::context& server);

 private:
  std::shared_ptr<boost::asio::ssl::context> current() const;
  static int on_handshake(SSL* ssl, void* self);

  mutable std::mutex mutex_;
  // Every pair loaded stays alive until destruction: a handshake may still
  // use one that was replaced.
  std::vector<std::shared_ptr<boost::asio::ssl::context>> loaded_;  // mutex_
};

}  // namespace stallwatch::collector::detail
