// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallwatch::collector {

// Raises this process's soft limit of open descriptors to its hard limit:
// every agent connection and every HTTP client holds one, and the usual soft
// limit (1024, systemd's default too) is far below the hard one. ZeroMQ and
// the HTTP server use epoll, so a high limit costs nothing. Returns the soft
// limit now in force. Called once at start, before any socket is opened.
std::uint64_t raise_descriptor_limit();

}  // namespace stallwatch::collector
