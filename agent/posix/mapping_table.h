// SPDX-License-Identifier: MIT
#pragma once

namespace stallwatch::posix {

// The addresses of live mappings of traced files (at most 256 at a time;
// more are not remembered), so that munmap marks only those. Lock-free, any
// thread; munmap of anything else costs one relaxed load while none is live.
void remember_mapping(void* address) noexcept;
// True when `address` was remembered; forgets it.
bool forget_mapping(void* address) noexcept;

}  // namespace stallwatch::posix
