#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "engine/engine.h"
#include "ingest/name_table.h"
#include "serve/api_backend.h"
#include "serve/published_state.h"

namespace stallwatch::collector {

// The engine, its name table and the one mutex that guards both, plus the
// latest PublishedState. The ingest thread decodes and ingests under the
// mutex; the tick thread ticks under it; the HTTP server's threads call
// timeline()/series(), which copy out under it. Nothing holds the mutex while
// writing to a socket. current() is a lock-free atomic load.
class EngineHost final : public ApiBackend {
 public:
  explicit EngineHost(EngineConfig config);

  std::mutex& mutex() { return mutex_; }
  // Only with mutex() held.
  NameTable& names() { return names_; }
  Engine& engine() { return engine_; }

  void publish(std::shared_ptr<const PublishedState> state);

  std::shared_ptr<const PublishedState> current() const override;
  std::optional<Timeline> timeline(std::string_view job, std::int32_t rank,
                                   std::int64_t seconds) const override;
  std::optional<Series> series(std::string_view job, std::string_view metric,
                               std::int64_t window_ns, std::int64_t span_ns) const override;

 private:
  mutable std::mutex mutex_;
  NameTable names_;
  Engine engine_;
  std::atomic<std::shared_ptr<const PublishedState>> published_;
};

}  // namespace stallwatch::collector
