// SPDX-License-Identifier: MIT
#include "class_cache.h"

namespace stallwatch::collector::detail {

ClassCache::Masks ClassCache::lookup(std::uint64_t key) {
  if (auto it = map_.find(key); it != map_.end()) return it->second;
  if (map_.size() >= kMaxEntries) map_.clear();
  // Views into the table stay valid; only finding them needs the lock.
  std::unique_lock<std::mutex> lock;
  if (names_mutex_ != nullptr) lock = std::unique_lock(*names_mutex_);
  const auto cat = names_.str(static_cast<NameId>(key >> 32));
  const auto name = names_.str(static_cast<NameId>(key & 0xFFFFFFFFu));
  if (lock.owns_lock()) lock.unlock();
  const Masks masks{mapping_.classify(cat, name, false), mapping_.classify(cat, name, true)};
  map_.emplace(key, masks);
  return masks;
}

}  // namespace stallwatch::collector::detail
