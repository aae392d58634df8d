// SPDX-License-Identifier: MIT
#pragma once

// Number and time formatting for the terminal dashboard, matching the web
// page (dashboard/web/js/format.js) so both show the same strings. Pure; an
// empty optional or a non-finite value prints as "—".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::tui {

inline constexpr std::string_view kDash = "—";

// 0.6134 -> "61.3%".
std::string format_percent(std::optional<double> ratio, int digits = 1);

// Seconds in the unit read fastest: "420 µs", "12.5 ms", "4.21 s", "3m 05s", "1h 02m".
std::string format_seconds(std::optional<double> seconds);

// A rate without its unit: "0.85", "12.4", "1.2k", "34k", "3.4M".
std::string format_rate(std::optional<double> per_second);

// 1234567 -> "1,234,567".
std::string format_count(std::uint64_t n);

// 1536 -> "1.5 KiB".
std::string format_bytes(std::uint64_t bytes);

// "10s" -> "10 s"; anything else unchanged ("total").
std::string window_label(std::string_view name);

// Agent drops and lost batches as one cell: "0/0", "12/3".
std::string format_loss(std::uint64_t dropped, std::uint64_t lost);

}  // namespace stallwatch::tui
