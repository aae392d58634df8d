// SPDX-License-Identifier: MIT
#include "tick_frames.h"

#include "api_json.h"
#include "serve/snapshot_json.h"

namespace stallwatch::collector {
namespace {

const Snapshot& snapshot_of(const PublishedState& state) {
  static const Snapshot kEmpty;
  return state.snapshot ? *state.snapshot : kEmpty;
}

const std::shared_ptr<const std::string>& null_detail() {
  static const auto kNull = std::make_shared<const std::string>("null");
  return kNull;
}

}  // namespace

TickFrames::TickFrames(std::shared_ptr<const PublishedState> state) : state_(std::move(state)) {}

std::uint64_t TickFrames::tick() const {
  return snapshot_of(*state_).tick;
}

std::shared_ptr<const std::string> TickFrames::head() const {
  const std::lock_guard lock(mutex_);
  if (!head_) {
    head_ = std::make_shared<const std::string>(
        tick_head_json(*state_, SnapshotJson(snapshot_of(*state_))));
  }
  return head_;
}

std::shared_ptr<const std::string> TickFrames::job_detail(
    const std::optional<std::string>& job) const {
  if (!job) return null_detail();
  const Snapshot& snap = snapshot_of(*state_);
  const JobSnapshot* found = snap.find_job(*job);
  if (found == nullptr) return null_detail();
  const std::lock_guard lock(mutex_);
  auto it = details_.find(*job);
  if (it == details_.end()) {
    std::string body;
    JsonWriter w(body);
    SnapshotJson(snap).write_job_detail(w, *found);
    it = details_.emplace(*job, std::make_shared<const std::string>(std::move(body))).first;
  }
  return it->second;
}

const std::shared_ptr<const std::string>& TickFrames::tail() {
  static const auto kTail = std::make_shared<const std::string>("}");
  return kTail;
}

}  // namespace stallwatch::collector
