// SPDX-License-Identifier: MIT
#include "keys/curve_key_pair.h"

#include <stallwatch/curve_key.h>
#include <zmq.h>

#include <cstring>

namespace stallwatch::collector {

bool curve_available() {
  return zmq_has("curve") != 0;
}

std::optional<CurveKeyPair> generate_key_pair(std::string& error) {
  if (!curve_available()) {
    error = "this libzmq was built without CURVE (zmq_has(\"curve\") is 0)";
    return std::nullopt;
  }
  char public_key[wire::kZ85KeyChars + 1] = {};
  char secret_key[wire::kZ85KeyChars + 1] = {};
  if (zmq_curve_keypair(public_key, secret_key) != 0) {
    error = std::string("cannot make a CURVE key pair: ") + zmq_strerror(zmq_errno());
    return std::nullopt;
  }
  return CurveKeyPair{public_key, secret_key};
}

std::optional<std::string> public_key_of(std::string_view secret_key) {
  if (!wire::is_z85_key(secret_key) || !curve_available()) return std::nullopt;
  const std::string secret(secret_key);
  char public_key[wire::kZ85KeyChars + 1] = {};
  if (zmq_curve_public(public_key, secret.c_str()) != 0) return std::nullopt;
  return std::string(public_key, std::strlen(public_key));
}

}  // namespace stallwatch::collector
