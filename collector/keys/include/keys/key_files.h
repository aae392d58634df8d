// SPDX-License-Identifier: MIT
#pragma once

// Key files (docs/design.md, "CURVE"): one Z85 key as the first word of a
// line, "#" comments allowed (stallwatch/curve_key.h). A secret key file must
// be readable by its owner only; a public key file and an allow-list may be
// shared freely.

#include <optional>
#include <string>
#include <vector>

#include "keys/curve_key_pair.h"

namespace stallwatch::collector {

// The key of a key file; nullopt with the reason (naming `path`) in `error`.
std::optional<std::string> read_key_file(const std::string& path, std::string& error);

// The key of a secret key file, refused when its mode lets the group or
// others read it ("chmod 600").
std::optional<std::string> read_secret_key_file(const std::string& path, std::string& error);

// Writes a key pair: `secret_path` created with mode 0600 (never replaced:
// an existing file is an error), `public_path` with 0644. Returns "" or the
// error.
std::string write_key_pair(const CurveKeyPair& pair, const std::string& secret_path,
                           const std::string& public_path);

// Writes (or replaces) a public key file, mode 0644. Returns "" or the error.
std::string write_public_key_file(const std::string& public_key, const std::string& path);

}  // namespace stallwatch::collector
