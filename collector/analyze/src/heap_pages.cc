// SPDX-License-Identifier: MIT
#include "heap_pages.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace stallwatch::collector {

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

std::uint64_t text_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::uint64_t bytes = 0;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    bytes = static_cast<std::uint64_t>(st.st_size);
    unsigned char magic[2] = {0, 0};
    unsigned char trailer[4] = {0, 0, 0, 0};
    if (st.st_size >= 18 && ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b &&
        ::pread(fd, trailer, 4, st.st_size - 4) == 4) {
      // ISIZE, little-endian.
      bytes = std::uint64_t{trailer[0]} | std::uint64_t{trailer[1]} << 8 |
              std::uint64_t{trailer[2]} << 16 | std::uint64_t{trailer[3]} << 24;
    }
  }
  ::close(fd);
  return bytes;
}

}  // namespace

std::uint64_t kineto_text_bytes(const TracePlan& plan) {
  std::uint64_t total = 0;
  for (const TraceSource& source : plan.sources) {
    if (source.info.format == TraceFormat::kKineto) total += text_bytes(source.info.path);
  }
  return total;
}

HugePageHeap::HugePageHeap(std::uint64_t bytes) {
  const auto pad = static_cast<int>(std::min<std::uint64_t>(bytes, std::uint64_t{512} << 20));
  ::mallopt(M_TRIM_THRESHOLD, std::max(64 << 20, 2 * pad));
  ::mallopt(M_TOP_PAD, pad);
  // A block larger than the heap's free top makes malloc extend the heap by
  // it and the pad; freed, it goes back to the top. One that free chunks
  // elsewhere in the heap can hold does not: the next try is twice as big.
  // (Volatile: a compiler may drop a malloc never used.)
  std::uintptr_t before = 0;
  std::uintptr_t after = 0;
  std::uintptr_t written = 0;  // past the last byte malloc wrote
  for (std::size_t request = ::mallinfo2().keepcost + 64;; request *= 2) {
    if (request > (std::size_t{16} << 20)) return;
    before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
    void* volatile probe = std::malloc(request);
    if (probe == nullptr) return;
    after = reinterpret_cast<std::uintptr_t>(::sbrk(0));
    // The next chunk's header follows the block.
    written = reinterpret_cast<std::uintptr_t>(probe) + request + 64;
    std::free(probe);
    if (after > before) break;
  }
  // A page touched before the advice gives its whole 2 MiB 4 KiB pages: the
  // range starts past every byte written so far.
  const std::uintptr_t from = (std::max(before, written) + 4096 + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t to = after & ~(kHugePage - 1);
  const std::uintptr_t top_end = after;
  if (to <= from || ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE) != 0) return;
  active_ = true;
  // The free top now runs from below `from` to `after`. A block that ends
  // exactly at `from` (a chunk's size is its request plus 8 bytes, rounded
  // to 16) moves the top's start there. Kept only if it did come from the top.
  const std::uintptr_t top_start = top_end - ::mallinfo2().keepcost;
  constexpr std::uintptr_t kHeader = sizeof(std::size_t);
  if (top_start >= from || from - top_start < 64 || (from - top_start) % 16 != 0) return;
  plug_ = std::malloc(from - top_start - kHeader);
  if (::mallinfo2().keepcost != top_end - from) {
    std::free(plug_);
    plug_ = nullptr;
  }
}

HugePageHeap::~HugePageHeap() {
  std::free(plug_);
}

}  // namespace stallwatch::collector
