// SPDX-License-Identifier: MIT
#include "log_sink.h"

#include <spdlog/spdlog.h>

#include "annotation_template.h"

namespace stallwatch::collector {

std::string LogSink::deliver(std::span<const Alert> alerts) {
  for (const Alert& a : alerts) {
    std::string summary;
    for (const auto& [name, text] : a.annotations) {
      if (name == "summary") summary = text;
    }
    const std::string subject =
        a.rank ? "job " + a.job + " rank " + std::to_string(*a.rank) : "job " + a.job;
    const std::string window = a.window.empty() ? std::string() : " over " + a.window;
    if (a.phase == AlertPhase::kResolved) {
      spdlog::info("alert {} resolved: {} ({}{} = {})", a.name, subject, a.metric, window,
                   format_alert_value(a.value));
    } else {
      spdlog::warn("alert {} firing [{}]: {}: {}{} = {}, threshold {}: {}", a.name, a.severity,
                   subject, a.metric, window, format_alert_value(a.value),
                   format_alert_value(a.threshold), summary);
    }
  }
  return {};
}

}  // namespace stallwatch::collector
