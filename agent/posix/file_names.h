// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "stallwatch/stallwatch.h"

namespace stallwatch::posix {

// The files a process traces, each named once: a traced open asks id_for()
// for its absolute path and gets the path's interned name id (sw_intern),
// the same for every open of the same path. At most `limit` distinct files
// per process get their own name; every later one shares the `other` id,
// and folded() counts how many distinct files went there.
//
// Lock-free (a fixed open-addressing table of path hashes, claimed with a
// compare-exchange), so a fork at any moment leaves a usable table to the
// child, which keeps the parent's names. Never allocates; sw_intern takes
// the agent's name lock. Called from any thread at open time only, never
// on the read/write path.
class FileNames {
 public:
  // `other` is the name id every file past `limit` gets.
  FileNames(std::uint32_t limit, sw_name_t other);

  // The name id of `path`; `first` is set when this call named it.
  sw_name_t id_for(std::string_view path, bool* first) noexcept;
  std::uint64_t folded() const noexcept { return folded_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    std::atomic<std::uint64_t> hash{0};
    std::atomic<sw_name_t> id{0};
  };

  std::uint32_t limit_;
  sw_name_t other_;
  std::size_t capacity_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<std::uint32_t> named_{0};
  std::atomic<std::uint64_t> folded_{0};
};

}  // namespace stallwatch::posix
