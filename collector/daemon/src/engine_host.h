// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <mutex>

#include "engine/engine.h"
#include "engine/name_table.h"
#include "serve/api_backend.h"
#include "serve/published_state.h"

namespace stallwatch::collector {

class TreeLink;

// The engine, its name table and the one mutex that guards both, plus the
// latest PublishedState. The ingest apply thread ingests under the mutex (the
// receive thread decodes outside it and takes it only to intern a new name);
// the tick thread ticks under it; the HTTP server's threads call
// timeline()/series(), which copy out under it. Nothing holds the mutex while
// writing to a socket. current() copies a shared_ptr under a mutex of its own
// (publish() swaps it under the same one), so readers never wait for the
// engine. Not std::atomic<std::shared_ptr>: libstdc++ 12's load releases its
// internal lock with a relaxed store, which ThreadSanitizer reports as a race
// with the next store.
class EngineHost final : public ApiBackend {
 public:
  explicit EngineHost(EngineConfig config);

  std::mutex& mutex() { return mutex_; }
  // Only with mutex() held.
  NameTable& names() { return names_; }
  Engine& engine() { return engine_; }

  void publish(std::shared_ptr<const PublishedState> state);
  // The collector tree, asked for the timelines and series of remote ranks; set before
  // the HTTP server starts, outlives it.
  void set_tree(const TreeLink* tree) { tree_ = tree; }

  std::shared_ptr<const PublishedState> current() const override;
  std::optional<Timeline> timeline(std::string_view job, std::int32_t rank,
                                   std::int64_t seconds) const override;
  std::optional<Series> series(std::string_view job, std::string_view metric,
                               std::int64_t window_ns, std::int64_t span_ns) const override;
  std::optional<RemoteTimeline> remote_timeline(std::string_view job, std::int32_t rank,
                                                std::int64_t seconds) const override;
  std::optional<RemoteSeries> remote_series(std::string_view job, std::string_view metric,
                                            std::string_view window, std::int64_t seconds,
                                            const Series* local) const override;

 private:
  mutable std::mutex mutex_;
  NameTable names_;
  Engine engine_;
  mutable std::mutex published_mutex_;
  std::shared_ptr<const PublishedState> published_;  // published_mutex_
  const TreeLink* tree_ = nullptr;
};

}  // namespace stallwatch::collector
