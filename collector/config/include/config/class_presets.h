// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/event_class.h"

namespace stallwatch::collector {

// Built-in event-class presets, the counterpart of DFAnalyzer's `conditions`
// hook:
//   "default": ClassMapping::defaults() (docs/design.md, "Event classes"),
//   "dlio":    the DLIO benchmark's names (TorchFramework.compute = compute,
//              loop.iter = fetch, data_loader / reader / checkpoint = app I/O,
//              POSIX / STDIO = I/O), then the defaults.
std::optional<ClassMapping> class_preset(std::string_view name);
const std::vector<std::string_view>& class_preset_names();

}  // namespace stallwatch::collector
