// SPDX-License-Identifier: MIT
#include "firing_store.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace stallwatch::collector {

std::optional<std::vector<FiringIncident>> load_firing_incidents(const std::string& path,
                                                                 std::string& error) {
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return std::vector<FiringIncident>{};
    error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  const auto doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("firing") ||
      !doc["firing"].is_array()) {
    error = path + ": not a list of firing alerts";
    return std::nullopt;
  }
  std::vector<FiringIncident> out;
  for (const auto& item : doc["firing"]) {
    if (!item.is_object() || !item.contains("id") || !item["id"].is_string() ||
        !item.contains("active_since_ns") || !item["active_since_ns"].is_number_integer() ||
        !item.contains("fired_at_ns") || !item["fired_at_ns"].is_number_integer()) {
      error = path + ": malformed entry " + item.dump();
      return std::nullopt;
    }
    out.push_back({item["id"].get<std::string>(), item["active_since_ns"].get<std::int64_t>(),
                   item["fired_at_ns"].get<std::int64_t>()});
  }
  return out;
}

std::string save_firing_incidents(const std::string& path,
                                  const std::vector<FiringIncident>& incidents) {
  nlohmann::json firing = nlohmann::json::array();
  for (const FiringIncident& i : incidents) {
    firing.push_back(
        {{"id", i.id}, {"active_since_ns", i.active_since_ns}, {"fired_at_ns", i.fired_at_ns}});
  }
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << nlohmann::json{{"firing", firing}}.dump() << "\n";
    out.flush();
    if (!out) return temporary + ": " + std::strerror(errno);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    return path + ": " + std::strerror(errno);
  }
  return {};
}

}  // namespace stallwatch::collector
