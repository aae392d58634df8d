// SPDX-License-Identifier: MIT
#pragma once

// A CURVE key pair in Z85 text (docs/design.md, "CURVE"), made and checked
// with libzmq's own CURVE.

#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::collector {

struct CurveKeyPair {
  std::string public_key;  // Z85, 40 characters: given to the other side
  std::string secret_key;  // Z85, 40 characters: never leaves its owner
};

// True when this libzmq was built with CURVE (zmq_has("curve")).
bool curve_available();

// A fresh key pair, or nullopt with the reason in `error`.
std::optional<CurveKeyPair> generate_key_pair(std::string& error);

// The public key of a Z85 secret key; nullopt when `secret_key` is not one.
std::optional<std::string> public_key_of(std::string_view secret_key);

}  // namespace stallwatch::collector
