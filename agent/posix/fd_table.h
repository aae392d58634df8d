// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>

namespace stallwatch::posix {

// Which file descriptors are traced, and the file each one is open on: the
// file's interned name id (FileNames), 0 for an untraced descriptor. Set
// when a traced open succeeds, cleared before a traced close and by every
// untraced open that returns the number. A call on any descriptor asks
// file() first: one bounds check and one relaxed load, which is all an
// untraced descriptor ever costs. Descriptors past kSize are never traced.
// Any thread; inherited as it is by a forked child, like the descriptors.
class FdTable {
 public:
  static constexpr int kSize = 1 << 16;

  std::uint32_t file(int fd) const noexcept {
    return static_cast<unsigned>(fd) < static_cast<unsigned>(kSize)
               ? files_[fd].load(std::memory_order_relaxed)
               : 0;
  }

  void set(int fd, std::uint32_t file) noexcept {
    if (static_cast<unsigned>(fd) < static_cast<unsigned>(kSize))
      files_[fd].store(file, std::memory_order_relaxed);
  }

 private:
  std::atomic<std::uint32_t> files_[kSize] = {};
};

}  // namespace stallwatch::posix
