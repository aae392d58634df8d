// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <string>

#include "alerts/alert_rule.h"
#include "http_client/http_client.h"

namespace stallwatch::collector {

// POSTs a JSON body to `url` through the HTTP client (https verified, with
// `tls`) for the HTTP sinks. Returns "" on a 2xx answer, else what went wrong
// in words for the log: the transport error, or "HTTP <status>: <body start>".
// Blocks up to `timeout`; sender threads only.
std::string post_json(const std::string& url, std::string body, const AlertLabels& headers,
                      const TlsOptions& tls, std::chrono::milliseconds timeout);

}  // namespace stallwatch::collector
