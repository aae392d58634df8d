// SPDX-License-Identifier: MIT
#pragma once

// Event classes (docs/design.md, "Event classes") and the configurable (cat, name) -> classes
// mapping, the collector's counterpart of DFAnalyzer's `conditions` hook.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallwatch::collector {

enum class EventClass : std::uint8_t {
  kCompute = 0,
  kDeviceBusy = 1,
  kFetch = 2,
  kAppIo = 3,
  kIo = 4,
  kComm = 5,
  kPipeline = 6,
};
inline constexpr int kEventClassCount = 7;

// A set of classes, one bit per EventClass.
using ClassMask = std::uint8_t;
constexpr ClassMask class_bit(EventClass c) {
  return ClassMask(1u << static_cast<int>(c));
}

// "compute", "device_busy", "fetch", "app_io", "io", "comm", "pipeline".
std::string_view to_string(EventClass c);
std::optional<EventClass> event_class_from_string(std::string_view s);

// One rule: an event matches when every given field matches. `cat` and `name`
// are lists of glob patterns (fnmatch(3), see glob_match); an empty list
// matches anything.
struct ClassRule {
  std::vector<std::string> cat;
  std::vector<std::string> name;
  bool main_thread_only = false;  // tid == pid of the rank's main process
  ClassMask classes = 0;          // 0 = "no class" (excludes the event)
};

// Ordered rules; the first matching rule decides an event's classes. An event
// classed kFetch is always kAppIo as well.
class ClassMapping {
 public:
  ClassMapping() = default;
  explicit ClassMapping(std::vector<ClassRule> rules) : rules_(std::move(rules)) {}

  // The defaults (pydftracer / dftracer categories; docs/design.md, "Event classes").
  static ClassMapping defaults();

  ClassMask classify(std::string_view cat, std::string_view name, bool main_thread) const;
  const std::vector<ClassRule>& rules() const { return rules_; }
  // Rules tried before the existing ones (user config overrides defaults).
  void prepend(std::vector<ClassRule> rules);

 private:
  std::vector<ClassRule> rules_;
};

// fnmatch(3) without flags: `*` and `?` match any characters, `/` and a
// leading `.` included; `[...]` is a set and `\\` escapes. Called once per
// distinct name (the engine caches classes by name), never per event.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace stallwatch::collector
