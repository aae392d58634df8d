// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include "traces/trace_plan.h"

namespace stallwatch::collector {

// The text the Kineto files of `plan` hold, estimated without reading them: a
// plain file's size, a gzip file's trailer (its last member's inflated size,
// modulo 2^32). Only a sizing hint.
std::uint64_t kineto_text_bytes(const TracePlan& plan);

// Grows the malloc heap now by `bytes` and asks the kernel to back that part
// with transparent huge pages (madvise MADV_HUGEPAGE; nothing happens where
// THP is off, or where malloc is not glibc's heap, as under a sanitizer).
//
// Why: a Kineto analysis keeps a row per event, written once and in order, and
// builds its tables from them; on 4 KiB pages each new page costs a fault, and
// on a virtual machine a fault costs microseconds. Peak RSS grows by less
// than one huge page per partly used 2 MiB.
//
// The part of the heap's free top below the first 2 MiB boundary is held by
// a block never written (the "plug"), so that what comes next is allocated
// in the huge pages. Freed memory stays in the heap (the trim threshold is
// raised). Construct before any thread starts; the plug is freed on
// destruction.
class HugePageHeap {
 public:
  explicit HugePageHeap(std::uint64_t bytes);
  ~HugePageHeap();
  HugePageHeap(const HugePageHeap&) = delete;
  HugePageHeap& operator=(const HugePageHeap&) = delete;

  // The heap grew and the kernel took the advice.
  bool active() const { return active_; }

 private:
  void* plug_ = nullptr;
  bool active_ = false;
};

}  // namespace stallwatch::collector
