// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <toml.hpp>

#include "alerts/alerts_config.h"

namespace stallwatch::collector {

// Applies the `[alerts]` table of stallwatchd.toml (`alerts` is its value)
// on top of `config`: `[[alerts.rule]]`, `[[alerts.alertmanager]]`,
// `[[alerts.webhook]]`, `[[alerts.exec]]` and the scalar keys (see
// systemd/stallwatchd.toml). Returns "" or one message naming the file, line
// and key (`file_name`, or the name the document was parsed under when
// empty). Never throws. Windows are checked later by validate().
std::string apply_alerts_toml(const toml::value& alerts, std::string_view file_name,
                              AlertsConfig& config);

}  // namespace stallwatch::collector
