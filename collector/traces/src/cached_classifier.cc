// SPDX-License-Identifier: MIT
#include "traces/cached_classifier.h"

#include "quick_hash.h"

namespace stallwatch::collector {

ClassMask CachedClassifier::classify(std::string_view cat, std::string_view name,
                                     bool main_thread) {
  const std::uint64_t h = detail::quick_hash(name, detail::quick_hash(cat)) + (main_thread ? 1 : 0);
  Recent& recent = recent_[h % kRecent];
  if (recent.used && recent.main_thread == main_thread && detail::same_text(recent.name, name) &&
      detail::same_text(recent.cat, cat)) {
    return recent.mask;
  }
  key_.assign(cat);
  key_.push_back('\x1f');
  key_.append(name);
  key_.push_back(main_thread ? '1' : '0');
  ClassMask mask = 0;
  if (auto it = cache_.find(std::string_view(key_)); it != cache_.end()) {
    mask = it->second;
  } else {
    mask = mapping_.classify(cat, name, main_thread);
    cache_.emplace(key_, mask);
  }
  recent.cat.assign(cat);
  recent.name.assign(name);
  recent.main_thread = main_thread;
  recent.used = true;
  recent.mask = mask;
  return mask;
}

}  // namespace stallwatch::collector
