#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "alerts/alert_rule.h"
#include "http_url.h"

namespace stallwatch::collector {

struct HttpPostResult {
  int status = 0;     // HTTP status; 0 when no response came
  std::string error;  // empty on a 2xx answer, else what went wrong
  std::string body;   // the response body (at most 64 KiB)
};

// One blocking HTTP/1.1 POST with an overall timeout (connect, send and
// receive together), on a fresh connection. For sender threads only: it
// blocks the caller up to `timeout` (plus name resolution). Never throws.
// Boost.Beast lives in this file alone.
HttpPostResult http_post(const HttpUrl& url, std::string_view content_type, std::string body,
                         const AlertLabels& headers, std::chrono::milliseconds timeout);

}  // namespace stallwatch::collector
