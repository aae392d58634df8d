// SPDX-License-Identifier: MIT
#include "engine_host.h"

#include "tree_link.h"

namespace stallwatch::collector {

EngineHost::EngineHost(EngineConfig config)
    : engine_(std::move(config), names_), published_(std::make_shared<PublishedState>()) {}

void EngineHost::publish(std::shared_ptr<const PublishedState> state) {
  {
    std::lock_guard lock(published_mutex_);
    published_.swap(state);
  }
  // `state` now holds the previous one: if this was its last reference, it
  // is freed here, outside the lock.
}

std::shared_ptr<const PublishedState> EngineHost::current() const {
  std::lock_guard lock(published_mutex_);
  return published_;
}

std::optional<Timeline> EngineHost::timeline(std::string_view job, std::int32_t rank,
                                             std::int64_t seconds) const {
  std::lock_guard lock(mutex_);
  return engine_.timeline(job, rank, seconds);
}

std::optional<Series> EngineHost::series(std::string_view job, std::string_view metric,
                                         std::int64_t window_ns, std::int64_t span_ns) const {
  std::lock_guard lock(mutex_);
  return engine_.series(job, metric, window_ns, span_ns);
}

std::optional<RemoteTimeline> EngineHost::remote_timeline(std::string_view job, std::int32_t rank,
                                                          std::int64_t seconds) const {
  if (tree_ == nullptr) return std::nullopt;
  return tree_->remote_timeline(job, rank, seconds);
}

std::optional<RemoteSeries> EngineHost::remote_series(std::string_view job, std::string_view metric,
                                                      std::string_view window, std::int64_t seconds,
                                                      const Series* local) const {
  if (tree_ == nullptr) return std::nullopt;
  return tree_->remote_series(job, metric, window, seconds, local);
}

}  // namespace stallwatch::collector
