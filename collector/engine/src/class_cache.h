// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "engine/event_class.h"
#include "engine/name_table.h"

namespace stallwatch::collector::detail {

// Classifies events by (cat id, name id, main-thread bit) with the configured
// ClassMapping, caching each answer so the per-event cost is one array probe
// (a small direct-mapped cache) or one hash lookup, never a string compare.
// Both main-thread answers are computed together on a miss.
//
// Bounded: past kMaxEntries distinct (cat, name) pairs the cache is cleared
// and refilled. Single-threaded; owned by the Engine or a BatchPreparer.
// Reads the NameTable on a miss, under `names_mutex` when one is given (a
// BatchPreparer's cache, on a thread other than the one that interns).
class ClassCache {
 public:
  static constexpr std::size_t kMaxEntries = 1u << 16;

  ClassCache(const ClassMapping& mapping, const NameTable& names, std::mutex* names_mutex = nullptr)
      : mapping_(mapping), names_(names), names_mutex_(names_mutex) {}

  using Masks = std::array<ClassMask, 2>;  // [not main thread, main thread]

  static std::uint64_t key(NameId cat, NameId name) { return (std::uint64_t{cat} << 32) | name; }
  // Both answers for key(cat, name).
  Masks masks(std::uint64_t key) {
    Front& f = front_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kFrontBits)];
    if (!f.valid || f.key != key) f = Front{key, lookup(key), true};
    return f.masks;
  }
  ClassMask classify(NameId cat, NameId name, bool main_thread) {
    return masks(key(cat, name))[main_thread ? 1 : 0];
  }

  std::size_t entries() const { return map_.size(); }
  std::size_t bytes() const {
    return sizeof(front_) + map_.size() * (sizeof(std::uint64_t) + sizeof(Masks) + 32);
  }

 private:
  static constexpr int kFrontBits = 10;
  struct Front {
    std::uint64_t key = 0;
    Masks masks{};
    bool valid = false;
  };

  Masks lookup(std::uint64_t key);

  const ClassMapping& mapping_;
  const NameTable& names_;
  std::mutex* names_mutex_;
  std::array<Front, std::size_t{1} << kFrontBits> front_{};
  std::unordered_map<std::uint64_t, Masks> map_;
};

}  // namespace stallwatch::collector::detail
