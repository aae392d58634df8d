// SPDX-License-Identifier: MIT
#include "capture.h"

#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <string_view>

#include "file_names.h"
#include "path_filter.h"

namespace stallwatch::posix {

constinit FdTable fd_table;

namespace {

constexpr const char* kOpNames[] = {
    "open",   "open64",    "openat",  "openat64",  "creat",  "creat64",  "close",
    "read",   "pread",     "pread64", "readv",     "preadv", "preadv64", "write",
    "pwrite", "pwrite64",  "pwritev", "pwritev64", "lseek",  "lseek64",  "stat",
    "stat64", "fstat",     "fstat64", "statx",     "mmap",   "mmap64",   "munmap",
    "fsync",  "fdatasync", "fopen",   "fopen64",   "fread",  "fwrite",   "fclose"};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == static_cast<std::size_t>(Op::kCount));

constexpr std::uint32_t kDefaultFileLimit = 1024;
constexpr std::uint32_t kMaxFileLimit = 60000;

enum NamesState : int { kNotYet = 0, kInterning = 1, kReady = 2, kOff = 3 };

std::atomic<int> names_state{kNotYet};
sw_name_t posix_id = 0;
sw_name_t stdio_id = 0;
sw_name_t file_cat_id = 0;
sw_name_t other_files_id = 0;
sw_name_t op_ids[static_cast<std::size_t>(Op::kCount)] = {};
FileNames* file_names = nullptr;

std::uint32_t file_limit() noexcept {
  const char* text = std::getenv("STALLWATCH_POSIX_MAX_FILES");
  if (text == nullptr || text[0] == '\0') return kDefaultFileLimit;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value > kMaxFileLimit) return kDefaultFileLimit;
  return static_cast<std::uint32_t>(value);
}

[[gnu::cold, gnu::noinline]] bool intern_names() noexcept {
  int expected = kNotYet;
  if (!names_state.compare_exchange_strong(expected, kInterning, std::memory_order_acq_rel))
    return expected == kReady;
  posix_id = sw_intern("POSIX");
  if (posix_id == 0) {
    names_state.store(kOff, std::memory_order_release);
    return false;
  }
  stdio_id = sw_intern("STDIO");
  file_cat_id = sw_intern("posix_file");
  other_files_id = sw_intern("other_files");
  for (std::size_t i = 0; i < static_cast<std::size_t>(Op::kCount); ++i)
    op_ids[i] = sw_intern(kOpNames[i]);
  const sw_name_t other = sw_intern("<other files>");
  try {
    file_names = new FileNames(file_limit(), other);
  } catch (...) {
    names_state.store(kOff, std::memory_order_release);
    return false;
  }
  names_state.store(kReady, std::memory_order_release);
  return true;
}

const PathFilter* path_filter() noexcept {
  try {
    static const PathFilter filter = PathFilter::from_environment();
    return &filter;
  } catch (...) {
    return nullptr;
  }
}

bool filtered_path(int dirfd, const char* path, char* absolute, std::size_t size) noexcept {
  if (path == nullptr || path[0] == '\0') return false;
  const PathFilter* filter = path_filter();
  return filter != nullptr && absolute_path(dirfd, path, absolute, size) &&
         filter->traced(absolute);
}

}  // namespace

sw_name_t op_category(Op op) noexcept {
  return op >= Op::kFopen ? stdio_id : posix_id;
}

sw_name_t op_name(Op op) noexcept {
  return op_ids[static_cast<std::size_t>(op)];
}

bool names_ready() noexcept {
  const int state = names_state.load(std::memory_order_acquire);
  if (state == kReady) [[likely]]
    return true;
  if (state != kNotYet) return false;
  return intern_names();
}

std::uint32_t open_target(int dirfd, const char* path) noexcept {
  const int error = errno;
  char absolute[PATH_MAX];
  std::uint32_t id = 0;
  if (filtered_path(dirfd, path, absolute, sizeof(absolute)) && names_ready()) {
    bool first = false;
    id = file_names->id_for(absolute, &first);
    sw_mark(file_cat_id, id, id);
    if (first && file_names->folded() > 0) {
      sw_counter(file_cat_id, other_files_id, static_cast<std::int64_t>(file_names->folded()));
    }
  }
  errno = error;
  return id;
}

bool path_traced(int dirfd, const char* path) noexcept {
  const int error = errno;
  char absolute[PATH_MAX];
  const bool traced = filtered_path(dirfd, path, absolute, sizeof(absolute));
  errno = error;
  return traced;
}

void record_mark(Op op, std::int64_t value) noexcept {
  const int error = errno;
  if (names_ready()) sw_mark(posix_id, op_name(op), value);
  errno = error;
}

}  // namespace stallwatch::posix
