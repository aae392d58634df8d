// SPDX-License-Identifier: MIT
#include "ingest/endpoint_scope.h"

#include <arpa/inet.h>

#include <string>

namespace stallwatch::collector {
namespace {

constexpr std::string_view kTcp = "tcp://";

bool is_loopback_ipv4(const std::string& host) {
  in_addr address{};
  if (inet_pton(AF_INET, host.c_str(), &address) != 1) return false;
  return (ntohl(address.s_addr) >> 24) == 127;
}

bool is_loopback_ipv6(const std::string& host) {
  in6_addr address{};
  if (inet_pton(AF_INET6, host.c_str(), &address) != 1) return false;
  return IN6_IS_ADDR_LOOPBACK(&address);
}

}  // namespace

bool is_local_endpoint(std::string_view endpoint) {
  if (endpoint.starts_with("ipc://")) return true;
  if (!endpoint.starts_with(kTcp)) return false;
  const std::string_view address = endpoint.substr(kTcp.size());
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view host = address.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    return is_loopback_ipv6(std::string(host.substr(1, host.size() - 2)));
  }
  if (host == "localhost") return true;
  return is_loopback_ipv4(std::string(host));
}

}  // namespace stallwatch::collector
