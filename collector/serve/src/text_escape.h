// SPDX-License-Identifier: MIT
#pragma once

// Escaping for the two text formats the server writes. Both replace invalid
// UTF-8 with U+FFFD, because job ids and names come from untrusted agents
// while JSON and the Prometheus format both require valid UTF-8.

#include <string>
#include <string_view>

namespace stallwatch::collector {

// Appends `text` as the inside of a JSON string (no surrounding quotes).
void append_json_escaped(std::string& out, std::string_view text);

// Appends `text` as a Prometheus label value (no quotes): `\`, `"` and
// newline are escaped as the text format 0.0.4 requires.
void append_label_escaped(std::string& out, std::string_view text);

// Appends `text` as a HELP docstring: `\` and newline are escaped.
void append_help_escaped(std::string& out, std::string_view text);

// Length of the valid UTF-8 sequence at the start of `text` (1-4), or 0 when
// the bytes there are not valid UTF-8. `text` must not be empty.
std::size_t utf8_sequence_length(std::string_view text);

}  // namespace stallwatch::collector
