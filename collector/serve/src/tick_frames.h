// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "serve/published_state.h"

namespace stallwatch::collector {

// The WebSocket tick message of one published state, serialized at most once
// however many sessions send it. A tick is sent as three parts: the shared
// head (`{"type":"tick",...,"jobs":[...],"alerts":[...],"job":`), the detail
// of the session's subscribed job (or `null`), and `}`. Each part is built on
// first use and then shared; details are cached per job.
//
// Created by HttpServer::on_tick(); used from any io thread (internally
// locked). Immutable state, so sessions may keep it as long as they like.
class TickFrames {
 public:
  explicit TickFrames(std::shared_ptr<const PublishedState> state);

  std::uint64_t tick() const;
  std::shared_ptr<const std::string> head() const;
  // The job detail body, or "null" when `job` is empty or not in the snapshot.
  std::shared_ptr<const std::string> job_detail(const std::optional<std::string>& job) const;
  static const std::shared_ptr<const std::string>& tail();

 private:
  std::shared_ptr<const PublishedState> state_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const std::string> head_;
  mutable std::map<std::string, std::shared_ptr<const std::string>, std::less<>> details_;
};

}  // namespace stallwatch::collector
