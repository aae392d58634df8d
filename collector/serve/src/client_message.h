// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::collector {

// `{"type": "subscribe", "job": "<id>" | null}` from a WebSocket client.
struct SubscribeRequest {
  std::optional<std::string> job;  // empty: unsubscribe
};

// Parses one client text message (untrusted). nullopt when it is not JSON,
// not an object, or not a message the server knows. Never throws.
std::optional<SubscribeRequest> parse_client_message(std::string_view text);

}  // namespace stallwatch::collector
