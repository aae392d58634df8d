// SPDX-License-Identifier: MIT
#include "idle_connections.h"

namespace stallwatch::collector::detail {

void IdleConnections::enter(const std::shared_ptr<Member>& member) {
  const std::lock_guard lock(mutex_);
  if (member->entry_) members_.erase(*member->entry_);
  member->entry_ = members_.insert(members_.end(), member);
}

bool IdleConnections::leave(Member& member) {
  const std::lock_guard lock(mutex_);
  if (!member.entry_) return false;
  members_.erase(*member.entry_);
  member.entry_.reset();
  return true;
}

std::shared_ptr<IdleConnections::Member> IdleConnections::claim_oldest() {
  const std::lock_guard lock(mutex_);
  while (!members_.empty()) {
    std::shared_ptr<Member> oldest = members_.front().lock();
    members_.pop_front();
    if (oldest) {
      oldest->entry_.reset();
      return oldest;
    }
  }
  return nullptr;
}

}  // namespace stallwatch::collector::detail
