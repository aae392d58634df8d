// SPDX-License-Identifier: MIT
#include "ingest/handshake_rejection.h"

namespace stallwatch::collector {

std::string_view handshake_rejection_name(HandshakeRejection reason) {
  switch (reason) {
    case HandshakeRejection::kPlaintextClient:
      return "plaintext_client";
    case HandshakeRejection::kWrongServerKey:
      return "wrong_server_key";
    case HandshakeRejection::kNotAllowed:
      return "not_allowed";
    case HandshakeRejection::kHandshakeFailed:
      break;
  }
  return "handshake_failed";
}

}  // namespace stallwatch::collector
