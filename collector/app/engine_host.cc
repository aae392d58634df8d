#include "app/engine_host.h"

namespace stallwatch::collector {

EngineHost::EngineHost(EngineConfig config)
    : engine_(std::move(config), names_), published_(std::make_shared<PublishedState>()) {}

void EngineHost::publish(std::shared_ptr<const PublishedState> state) {
  published_.store(std::move(state));
}

std::shared_ptr<const PublishedState> EngineHost::current() const { return published_.load(); }

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

}  // namespace stallwatch::collector
