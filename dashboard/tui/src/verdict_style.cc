#include "verdict_style.h"

namespace stallwatch::tui {

Style verdict_style(std::string_view verdict) {
  if (verdict == "data-starved") return Style::kBad;
  if (verdict == "io-bound" || verdict == "host-bound") return Style::kWarn;
  if (verdict == "well-overlapped") return Style::kGood;
  return Style::kDim;
}

Style state_style(std::string_view state) {
  if (state == "silent") return Style::kWarn;
  if (state == "finished") return Style::kDim;
  return Style::kNormal;
}

Style alert_style(std::string_view state) {
  if (state == "firing") return Style::kBad;
  if (state == "pending") return Style::kWarn;
  return Style::kDim;
}

std::string_view verdict_meaning(std::string_view verdict) {
  if (verdict == "data-starved")
    return "the device idles while the training loop waits for the next batch";
  if (verdict == "io-bound") return "application I/O is not hidden behind compute";
  if (verdict == "host-bound")
    return "the device is idle but not waiting for data: host-side work is the limit";
  if (verdict == "well-overlapped") return "data loading overlaps compute; the device is kept busy";
  if (verdict == "idle") return "no training activity in this window";
  return "";
}

}  // namespace stallwatch::tui
