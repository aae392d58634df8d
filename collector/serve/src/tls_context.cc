// SPDX-License-Identifier: MIT
#include "tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "serve/tls_files.h"

namespace stallwatch::collector {
namespace detail {
namespace {

namespace ssl = boost::asio::ssl;

// "" when the file can be opened for reading, else why not.
std::string unreadable(const std::string& path) {
  std::ifstream in(path);
  if (in) return {};
  return std::strerror(errno);
}

}  // namespace

std::shared_ptr<ssl::context> make_server_tls_context(const std::string& cert_file,
                                                      const std::string& key_file,
                                                      std::string& error) {
  if (auto why = unreadable(cert_file); !why.empty()) {
    error = "cannot read TLS certificate '" + cert_file + "': " + why;
    return nullptr;
  }
  if (auto why = unreadable(key_file); !why.empty()) {
    error = "cannot read TLS key '" + key_file + "': " + why;
    return nullptr;
  }
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(cert_file, ec);
  if (ec) {
    error = "TLS certificate '" + cert_file + "' is not a PEM certificate: " + ec.message();
    return nullptr;
  }
  ctx->use_private_key_file(key_file, ssl::context::pem, ec);
  if (ec && ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == X509_R_KEY_VALUES_MISMATCH) {
    error = "TLS key '" + key_file + "' does not match certificate '" + cert_file + "'";
    return nullptr;
  }
  if (ec) {
    error = "TLS key '" + key_file + "' is not a PEM private key for certificate '" + cert_file +
            "': " + ec.message();
    return nullptr;
  }
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
    error = "TLS key '" + key_file + "' does not match certificate '" + cert_file + "'";
    return nullptr;
  }
  return ctx;
}

std::string ServerCertificate::load(const std::string& cert_file, const std::string& key_file) {
  std::string error;
  auto loaded = make_server_tls_context(cert_file, key_file, error);
  if (!loaded) return error;
  std::lock_guard lock(mutex_);
  loaded_.push_back(std::move(loaded));
  return {};
}

void ServerCertificate::attach(ssl::context& server) {
  SSL_CTX_set_cert_cb(server.native_handle(), &ServerCertificate::on_handshake, this);
}

std::shared_ptr<ssl::context> ServerCertificate::current() const {
  std::lock_guard lock(mutex_);
  return loaded_.empty() ? nullptr : loaded_.back();
}

int ServerCertificate::on_handshake(SSL* ssl, void* self) {
  const auto pair = static_cast<const ServerCertificate*>(self)->current();
  if (!pair) return 1;
  SSL_CTX* ctx = pair->native_handle();
  STACK_OF(X509)* chain = nullptr;
  SSL_CTX_get0_chain_certs(ctx, &chain);
  // Copies (references) the pair into this connection; 0 fails the handshake.
  return SSL_use_cert_and_key(ssl, SSL_CTX_get0_certificate(ctx), SSL_CTX_get0_privatekey(ctx),
                              chain, 1) == 1
             ? 1
             : 0;
}

}  // namespace detail

std::string check_tls_files(const std::string& cert_file, const std::string& key_file) {
  std::string error;
  detail::make_server_tls_context(cert_file, key_file, error);
  return error;
}

}  // namespace stallwatch::collector
