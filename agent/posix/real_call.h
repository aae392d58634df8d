// SPDX-License-Identifier: MIT
#pragma once

#include <dlfcn.h>

#include <atomic>

namespace stallwatch::posix {

// The C library's own definition of one interposed function, found with
// dlsym(RTLD_NEXT): what a wrapper calls to do the real work. Resolved on
// first use from any thread (a racing resolve stores the same pointer), so
// a call that arrives before this library's constructors ran still works.
// get() is one relaxed load and a predictable branch. Null only when the C
// library lacks the symbol; wrappers of optional calls check for it.
template <typename Fn>
class RealCall {
 public:
  explicit constexpr RealCall(const char* symbol) noexcept : symbol_(symbol) {}

  Fn* get() noexcept {
    Fn* fn = fn_.load(std::memory_order_relaxed);
    if (fn == nullptr) [[unlikely]]
      fn = resolve();
    return fn;
  }

 private:
  [[gnu::cold, gnu::noinline]] Fn* resolve() noexcept {
    Fn* fn = reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, symbol_));
    fn_.store(fn, std::memory_order_relaxed);
    return fn;
  }

  const char* symbol_;
  std::atomic<Fn*> fn_{nullptr};
};

}  // namespace stallwatch::posix
