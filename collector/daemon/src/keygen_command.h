// SPDX-License-Identifier: MIT
#pragma once

// `stallwatchd keygen`: the collector's CURVE key pair and agents' key pairs
// (docs/design.md, "CURVE").
//   stallwatchd keygen [--state-dir DIR]  prints the collector's public key,
//                                         making the pair on first use
//   stallwatchd keygen --agent FILE       makes an agent key pair: FILE
//                                         (secret, 0600) and FILE.pub; prints
//                                         the public key
// `argv[0]` is "keygen". Returns the process exit status (2: bad usage).

namespace stallwatch::collector {

int keygen_main(int argc, const char* const* argv);

}  // namespace stallwatch::collector
