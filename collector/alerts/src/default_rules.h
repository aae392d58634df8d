// SPDX-License-Identifier: MIT
#pragma once

#include <vector>

#include "alerts/alert_rule.h"

namespace stallwatch::collector {

// The rules stallwatchd runs when the config has no `[[alerts.rule]]` (and
// `alerts.defaults` is not false); systemd/stallwatch-rules.yml is their
// Prometheus equivalent:
//   DataStarved  data_stall_ratio over 60s > 0.3 for 30s (clears at 0.25)
//   DeviceIdle   device_idle_ratio over 60s > 0.5 for 2m (clears at 0.45)
//   RankSilent   no batch from a rank that has not finished for 30s
std::vector<AlertRule> default_alert_rules();

}  // namespace stallwatch::collector
