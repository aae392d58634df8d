// SPDX-License-Identifier: MIT
#pragma once

// sd_notify(3) messages for `Type=notify` units (systemd/stallwatchd.service):
// READY=1 once serving, WATCHDOG=1 from the tick thread (so a stuck tick loop
// gets the daemon restarted), STOPPING=1 on shutdown. No-ops outside systemd
// (NOTIFY_SOCKET unset) or when built without libsystemd.

#include <string>

namespace stallwatch::collector {

void systemd_notify_ready(const std::string& status);
void systemd_notify_watchdog();
void systemd_notify_stopping();

}  // namespace stallwatch::collector
