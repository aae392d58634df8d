// SPDX-License-Identifier: MIT
#include "verdict_style.h"

namespace stallwatch::tui {
namespace {

// `ok`: green for a verdict, plain text where most rows are fine (states,
// device sources).
Style tone_style(catalog::Tone tone, Style ok) {
  switch (tone) {
    case catalog::Tone::kBad:
      return Style::kBad;
    case catalog::Tone::kWarn:
      return Style::kWarn;
    case catalog::Tone::kOk:
      return ok;
    case catalog::Tone::kDim:
      return Style::kDim;
  }
  return Style::kNormal;
}

}  // namespace

Style verdict_style(std::string_view verdict) {
  const auto* term = catalog::find_term(catalog::kVerdicts, verdict);
  return term != nullptr ? tone_style(term->tone, Style::kGood) : Style::kDim;
}

Style state_style(std::string_view state) {
  const auto* term = catalog::find_term(catalog::kRankStates, state);
  return term != nullptr ? tone_style(term->tone, Style::kNormal) : Style::kNormal;
}

Style source_style(std::string_view source) {
  const auto* term = catalog::find_term(catalog::kDeviceSignals, source);
  return term != nullptr ? tone_style(term->tone, Style::kNormal) : Style::kNormal;
}

Style cause_style(std::string_view cause) {
  const auto* term = catalog::find_term(catalog::kCauses, cause);
  return term != nullptr ? tone_style(term->tone, Style::kNormal) : Style::kDim;
}

Style alert_style(std::string_view state) {
  if (state == "firing") return Style::kBad;
  if (state == "pending") return Style::kWarn;
  return Style::kDim;
}

}  // namespace stallwatch::tui
