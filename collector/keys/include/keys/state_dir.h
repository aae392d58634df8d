// SPDX-License-Identifier: MIT
#pragma once

// The daemon's state directory and the key pair kept in it
// (docs/design.md, "CURVE"): "curve.key" (secret, 0600) and "curve.pub"
// (public, to give to agents), created on first use.

#include <optional>
#include <string>

#include "keys/curve_key_pair.h"

namespace stallwatch::collector {

inline constexpr const char* kSecretKeyFileName = "curve.key";
inline constexpr const char* kPublicKeyFileName = "curve.pub";

// $STATE_DIRECTORY (set by systemd's StateDirectory=), else
// $XDG_STATE_HOME/stallwatch, else $HOME/.local/state/stallwatch, else
// /tmp/stallwatch-$UID/state.
std::string default_state_dir();

// The key pair in `state_dir`: read when curve.key exists (its public key is
// derived from it, and curve.pub rewritten when missing), else created, the
// directory included (0700). `created` says which. nullopt with the reason in
// `error`.
std::optional<CurveKeyPair> load_or_create_key_pair(const std::string& state_dir, bool& created,
                                                    std::string& error);

}  // namespace stallwatch::collector
