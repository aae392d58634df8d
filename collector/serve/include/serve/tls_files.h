// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace stallwatch::collector {

// Loads a PEM certificate chain and its private key the way HttpServer does
// when serving TLS. Returns "" when both load and the key matches the
// certificate, else a sentence naming the file at fault (e.g. "cannot read
// TLS certificate '/etc/x.pem': No such file or directory"). Any thread.
std::string check_tls_files(const std::string& cert_file, const std::string& key_file);

}  // namespace stallwatch::collector
