// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace stallwatch::collector {

// The first line of a token file (http.token_file, tree.node_token_file),
// without its line end. The file must be a regular file of at most 64 KiB:
// a FIFO would block the daemon's start, a device such as /dev/zero never
// ends its line, and a huge file would be read whole; each is refused, the
// reason in `error` ("not a regular file", "larger than 64 KiB" or the
// system's). False with `error` set; true with `line` set, maybe empty.
bool read_token_file(const std::string& path, std::string& line, std::string& error);

}  // namespace stallwatch::collector
