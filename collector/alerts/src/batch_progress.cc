// SPDX-License-Identifier: MIT
#include "batch_progress.h"

#include <utility>

namespace stallwatch::collector {

void BatchProgress::begin(std::vector<std::string> keys) {
  if (keys == keys_) return;
  keys_ = std::move(keys);
  done_.assign(keys_.size(), false);
}

void BatchProgress::mark_delivered(std::size_t i) {
  if (i < done_.size()) done_[i] = true;
}

void BatchProgress::finish() {
  keys_.clear();
  done_.clear();
}

}  // namespace stallwatch::collector
