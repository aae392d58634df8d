// SPDX-License-Identifier: MIT
#pragma once

// Why the ingest sockets refused a connection before any frame of it was
// read (docs/design.md, "CURVE"). Counted by the Receiver from its sockets'
// monitor events; exported as "rejected_connections" of /api/v1/status and
// stallwatch_ingest_rejected_connections_total{reason}.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stallwatch::collector {

enum class HandshakeRejection : std::uint8_t {
  kPlaintextClient = 0,  // a client without CURVE on a CURVE endpoint
  kWrongServerKey = 1,   // a CURVE client that does not have this collector's public key
  kNotAllowed = 2,       // a CURVE client whose key is not on the allow-list
  // Any other failed handshake (e.g. a CURVE client on a plaintext endpoint),
  // and a connection to a CURVE endpoint closed before its handshake ended
  // (among them plaintext clients that hung up before their greeting was read).
  kHandshakeFailed = 3,
};
inline constexpr std::size_t kHandshakeRejectionCount = 4;

// "plaintext_client", "wrong_server_key", "not_allowed", "handshake_failed".
std::string_view handshake_rejection_name(HandshakeRejection reason);

using HandshakeRejections = std::array<std::uint64_t, kHandshakeRejectionCount>;

}  // namespace stallwatch::collector
