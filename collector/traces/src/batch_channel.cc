// SPDX-License-Identifier: MIT
#include "traces/batch_channel.h"

#include <algorithm>

namespace stallwatch::collector {

BatchChannel::BatchChannel(std::size_t producers, std::size_t slots) : producers_left_(producers) {
  slots = std::max<std::size_t>(slots, 1);
  for (std::size_t i = 0; i < slots; ++i) {
    slots_.push_back(std::make_unique<ShippedBatch>());
    free_.push_back(slots_.back().get());
  }
}

ShippedBatch* BatchChannel::acquire() {
  std::unique_lock lock(mutex_);
  free_cv_.wait(lock, [&] { return !free_.empty(); });
  ShippedBatch* batch = free_.back();
  free_.pop_back();
  return batch;
}

void BatchChannel::push(ShippedBatch* batch) {
  {
    std::lock_guard lock(mutex_);
    ready_.push_back(batch);
  }
  ready_cv_.notify_one();
}

void BatchChannel::done() {
  bool last = false;
  {
    std::lock_guard lock(mutex_);
    last = producers_left_ > 0 && --producers_left_ == 0;
  }
  if (last) ready_cv_.notify_all();
}

ShippedBatch* BatchChannel::pop() {
  std::unique_lock lock(mutex_);
  ready_cv_.wait(lock, [&] { return !ready_.empty() || producers_left_ == 0; });
  if (ready_.empty()) return nullptr;
  ShippedBatch* batch = ready_.front();
  ready_.pop_front();
  return batch;
}

void BatchChannel::release(ShippedBatch* batch) {
  {
    std::lock_guard lock(mutex_);
    free_.push_back(batch);
  }
  free_cv_.notify_one();
}

}  // namespace stallwatch::collector
