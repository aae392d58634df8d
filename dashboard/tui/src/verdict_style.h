// SPDX-License-Identifier: MIT
#pragma once

// The colour role of each verdict, state, device source and alert, shared by
// every view, and the compute proxy's words. Tones and words come from the
// catalog (catalog/vocabulary.h), as the web page's do: red only for
// problems. Pure.

#include <string_view>

#include "canvas.h"
#include "catalog/vocabulary.h"

namespace stallwatch::tui {

// The verdict's tone: bad (data-starved) red, warn (io-bound, host-bound)
// amber, ok (well-overlapped) green, dim (idle, unknown).
Style verdict_style(std::string_view verdict);
// The state's tone, where ok is plain text (most ranks are active): active
// normal, silent warn, finished dim.
Style state_style(std::string_view state);
// The device source's tone, where ok is plain text: compute-proxy warn,
// every real device signal (and "mixed") normal.
Style source_style(std::string_view source);
// The cause's tone: storage and preprocessing bad, unknown and none dim.
Style cause_style(std::string_view cause);
// firing: bad; pending: warn; resolved: dim.
Style alert_style(std::string_view state);

inline constexpr std::string_view kComputeProxy =
    catalog::term(catalog::DeviceSignal::kComputeProxy).name;
inline constexpr std::string_view kComputeProxyLabel =
    catalog::term(catalog::DeviceSignal::kComputeProxy).label;
inline constexpr std::string_view kProxyNote =
    catalog::term(catalog::DeviceSignal::kComputeProxy).meaning;

}  // namespace stallwatch::tui
