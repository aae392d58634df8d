// SPDX-License-Identifier: MIT
#include "descriptor_limit.h"

#include <sys/resource.h>

namespace stallwatch::collector {

namespace {
// Used when the hard limit is unlimited.
constexpr rlim_t kUnlimitedTarget = 1 << 20;
}  // namespace

std::uint64_t raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  const rlim_t target = limit.rlim_max == RLIM_INFINITY ? kUnlimitedTarget : limit.rlim_max;
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= target) return limit.rlim_cur;
  rlimit raised{target, limit.rlim_max};
  if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return target;
  return limit.rlim_cur;
}

}  // namespace stallwatch::collector
