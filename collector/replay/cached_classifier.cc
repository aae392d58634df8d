#include "replay/cached_classifier.h"

namespace stallwatch::collector {

namespace {

// A cheap slot for the direct-mapped table: lengths and edge characters.
std::size_t slot(std::string_view cat, std::string_view name, bool main_thread) {
  std::size_t h = cat.size() * 31 + name.size() * 7 + (main_thread ? 1 : 0);
  if (!cat.empty()) h = h * 131 + static_cast<unsigned char>(cat.back());
  if (!name.empty()) {
    h = h * 131 + static_cast<unsigned char>(name.front());
    h = h * 131 + static_cast<unsigned char>(name.back());
    h = h * 131 + static_cast<unsigned char>(name[name.size() / 2]);
  }
  return h;
}

}  // namespace

ClassMask CachedClassifier::classify(std::string_view cat, std::string_view name,
                                     bool main_thread) {
  key_.assign(cat);
  key_.push_back('\x1f');
  key_.append(name);
  key_.push_back(main_thread ? '1' : '0');
  Recent& recent = recent_[slot(cat, name, main_thread) % kRecent];
  if (recent.key == key_) return recent.mask;
  ClassMask mask = 0;
  if (auto it = cache_.find(std::string_view(key_)); it != cache_.end()) {
    mask = it->second;
  } else {
    mask = mapping_.classify(cat, name, main_thread);
    cache_.emplace(key_, mask);
  }
  recent.key = key_;
  recent.mask = mask;
  return mask;
}

}  // namespace stallwatch::collector
