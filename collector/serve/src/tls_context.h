// SPDX-License-Identifier: MIT
#pragma once

// Private to collector/serve: the server's OpenSSL context, made from the
// PEM files of ServeConfig. TLS 1.2 and newer only.

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

namespace stallwatch::collector::detail {

// The context for the certificate chain and key, or nullptr with `error`
// naming the file at fault.
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(const std::string& cert_file,
                                                                   const std::string& key_file,
                                                                   std::string& error);

}  // namespace stallwatch::collector::detail
