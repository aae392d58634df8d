// SPDX-License-Identifier: MIT
#include "alerts/alerts_config.h"

#include <set>

#include "default_rules.h"

namespace stallwatch::collector {

std::vector<AlertRule> AlertsConfig::effective_rules(const std::vector<std::int64_t>& windows_ns,
                                                     std::vector<std::string>* skipped) const {
  if (!rules.empty() || !defaults) return rules;
  std::vector<AlertRule> out;
  for (AlertRule& rule : default_alert_rules()) {
    if (validate(rule, windows_ns).empty()) {
      out.push_back(std::move(rule));
    } else if (skipped != nullptr) {
      skipped->push_back(rule.name);
    }
  }
  return out;
}

std::string validate(const AlertsConfig& config, const std::vector<std::int64_t>& windows_ns) {
  std::set<std::string> names;
  for (const AlertRule& rule : config.rules) {
    if (auto err = validate(rule, windows_ns); !err.empty()) return err;
    if (!names.insert(rule.name).second) {
      return rule.origin + ": alert rule '" + rule.name +
             "' is defined twice; give each rule its own name";
    }
  }
  std::set<std::string> sinks;
  const auto check_sink = [&](const SinkDelivery& d) -> std::string {
    if (!sinks.insert(d.name).second) {
      return "alerts: two sinks are named '" + d.name + "'; give each its own name = \"...\"";
    }
    return {};
  };
  for (const auto& s : config.alertmanagers) {
    if (auto err = check_sink(s.delivery); !err.empty()) return err;
  }
  for (const auto& s : config.webhooks) {
    if (auto err = check_sink(s.delivery); !err.empty()) return err;
  }
  for (const auto& s : config.execs) {
    if (auto err = check_sink(s.delivery); !err.empty()) return err;
  }
  return {};
}

}  // namespace stallwatch::collector
