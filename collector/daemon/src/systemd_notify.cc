// SPDX-License-Identifier: MIT
#include "systemd_notify.h"

#if defined(STALLWATCH_HAVE_SYSTEMD)
#include <systemd/sd-daemon.h>
#endif

namespace stallwatch::collector {

#if defined(STALLWATCH_HAVE_SYSTEMD)
void systemd_notify_ready(const std::string& status) {
  const std::string message = "READY=1\nSTATUS=" + status;
  sd_notify(0, message.c_str());
}
void systemd_notify_watchdog() {
  sd_notify(0, "WATCHDOG=1");
}
void systemd_notify_stopping() {
  sd_notify(0, "STOPPING=1");
}
#else
void systemd_notify_ready(const std::string&) {}
void systemd_notify_watchdog() {}
void systemd_notify_stopping() {}
#endif

}  // namespace stallwatch::collector
