// SPDX-License-Identifier: MIT
#pragma once

// Which ingest endpoints only this host can reach: the ones that may stay
// plaintext (docs/design.md, "CURVE").

#include <string_view>

namespace stallwatch::collector {

// True for "ipc://..." and for "tcp://HOST:PORT" whose HOST is a loopback
// address: 127.0.0.0/8, ::1 (written "[::1]") or "localhost". Every other
// tcp host (0.0.0.0, *, an interface or host name, any other address) can
// be reached from elsewhere: false, as for any other transport.
bool is_local_endpoint(std::string_view endpoint);

}  // namespace stallwatch::collector
