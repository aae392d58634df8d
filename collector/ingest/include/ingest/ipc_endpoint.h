// SPDX-License-Identifier: MIT
#pragma once

// ZeroMQ ipc endpoints of the ingest socket: the default path and
// the filesystem preparation before binding one.

#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::collector {

// "ipc://$XDG_RUNTIME_DIR/stallwatch/ingest.sock", or
// "ipc:///tmp/stallwatch-$UID/ingest.sock" when XDG_RUNTIME_DIR is unset or empty.
std::string default_ipc_endpoint();

// Makes an "ipc://PATH" endpoint bindable, or says why it is not:
//   - creates PATH's missing parent directories with mode 0700;
//   - refuses a parent directory owned by another user (other than root), so
//     nobody else controls where agents connect;
//   - removes a stale socket file (nobody accepts on it), refuses a live one
//     ("Address already in use": ZeroMQ would silently take it over) and
//     refuses a path that is not a socket.
// Returns nullopt when ready; the error does not repeat the endpoint. Other
// transports, "ipc://*" and abstract "ipc://@name" are left alone.
std::optional<std::string> prepare_ipc_endpoint(std::string_view endpoint);

}  // namespace stallwatch::collector
