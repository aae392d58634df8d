// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/event_class.h"

namespace stallwatch::collector {

// Memoizes ClassMapping::classify per distinct (cat, name, main thread): a
// trace has a few hundred distinct names and millions of events, so glob rules
// run once per name. A small direct-mapped table in front of the map answers
// most events with two string comparisons. Memory is one entry per distinct
// triple. Not thread-safe: each reading thread has its own.
class CachedClassifier {
 public:
  explicit CachedClassifier(ClassMapping mapping) : mapping_(std::move(mapping)) {}

  ClassMask classify(std::string_view cat, std::string_view name, bool main_thread);
  const ClassMapping& mapping() const { return mapping_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Recent {
    std::string cat;
    std::string name;
    bool main_thread = false;
    bool used = false;
    ClassMask mask = 0;
  };
  static constexpr std::size_t kRecent = 256;

  ClassMapping mapping_;
  std::unordered_map<std::string, ClassMask, Hash, std::equal_to<>> cache_;
  std::array<Recent, kRecent> recent_;
  std::string key_;
};

}  // namespace stallwatch::collector
