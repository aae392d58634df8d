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

sw_name_t file_cat_id = 0;
sw_name_t other_files_id = 0;
FileNames* file_names = nullptr;

std::uint32_t file_limit() noexcept {
  const char* text = std::getenv("STALLWATCH_POSIX_MAX_FILES");
  if (text == nullptr || text[0] == '\0') return kDefaultFileLimit;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value > kMaxFileLimit) return kDefaultFileLimit;
  return static_cast<std::uint32_t>(value);
}

}  // namespace

constinit CallNames call_names;

namespace {

bool intern_names_now() noexcept {
  std::atomic<int>& state = call_names.state;
  int expected = CallNames::kNotYet;
  if (!state.compare_exchange_strong(expected, CallNames::kInterning, std::memory_order_acq_rel))
    return expected == CallNames::kReady;
  call_names.category[0] = sw_intern("POSIX");
  if (call_names.category[0] == 0) {
    state.store(CallNames::kOff, std::memory_order_release);
    return false;
  }
  call_names.category[1] = sw_intern("STDIO");
  file_cat_id = sw_intern("posix_file");
  other_files_id = sw_intern("other_files");
  for (std::size_t i = 0; i < static_cast<std::size_t>(Op::kCount); ++i)
    call_names.op[i] = sw_intern(kOpNames[i]);
  const sw_name_t other = sw_intern("<other files>");
  try {
    file_names = new FileNames(file_limit(), other);
  } catch (...) {
    state.store(CallNames::kOff, std::memory_order_release);
    return false;
  }
  state.store(CallNames::kReady, std::memory_order_release);
  return true;
}

}  // namespace

bool intern_names() noexcept {
  const int error = errno;
  const bool ready = intern_names_now();
  errno = error;
  return ready;
}

namespace {

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
  if (names_ready()) sw_mark(op_category(op), op_name(op), value);
  errno = error;
}

}  // namespace stallwatch::posix
