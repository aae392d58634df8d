// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "alerts/alert_evaluator.h"

namespace stallwatch::collector {

// The firing alerts kept in a small JSON file next to the journal, so that a
// restarted daemon resumes them instead of paging again. Written whole to a
// temporary file and renamed, so a crash leaves the old or the new set.
// Plain functions; the caller's thread.

// nullopt with `error` set when the file exists but cannot be read or
// parsed; an empty set when it does not exist.
std::optional<std::vector<FiringIncident>> load_firing_incidents(const std::string& path,
                                                                 std::string& error);
// "" or why not.
std::string save_firing_incidents(const std::string& path,
                                  const std::vector<FiringIncident>& incidents);

}  // namespace stallwatch::collector
