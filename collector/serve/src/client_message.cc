// SPDX-License-Identifier: MIT
#include "client_message.h"

#include <nlohmann/json.hpp>

namespace stallwatch::collector {

std::optional<SubscribeRequest> parse_client_message(std::string_view text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  const auto type = doc.find("type");
  if (type == doc.end() || !type->is_string() ||
      type->get_ref<const std::string&>() != "subscribe") {
    return std::nullopt;
  }
  const auto job = doc.find("job");
  if (job == doc.end() || job->is_null()) return SubscribeRequest{};
  if (!job->is_string()) return std::nullopt;
  return SubscribeRequest{job->get<std::string>()};
}

}  // namespace stallwatch::collector
