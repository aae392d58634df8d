// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "serve/published_state.h"

namespace stallwatch::collector {

// A remote rank's timeline as the head got it from the rank's node.
struct RemoteTimeline {
  int status = 200;  // 200: `body` is the node's timeline JSON; else the status to answer
  std::string body;  // the JSON, or why the node could not give it (a sentence)
};

// A job's series at a collector tree's head: its own ranks' and those its
// nodes gave (docs/api.md, "Collector tree").
struct RemoteSeries {
  int status = 200;   // 200: `series` holds every rank it could get; else the status to answer
  std::string error;  // with another status: why (a sentence)
  Series series;
  // The nodes that own ranks of the job and did not give them, as
  // (node, why); a nested head's failures are listed too.
  std::vector<std::pair<std::string, std::string>> failed_nodes;
};

// What the HTTP server needs from the daemon. Implemented by stallwatchd (and
// by fakes in tests).
//
// Called from the server's io threads, concurrently: implementations must be
// thread-safe. current() must not block (an atomic shared_ptr load or a
// briefly held mutex around a pointer copy). timeline() and series() may
// lock the engine briefly to copy the data out; the server never calls them
// while writing to a socket and never holds anything they return across a
// lock.
class ApiBackend {
 public:
  virtual ~ApiBackend() = default;

  // The latest published state; never null.
  virtual std::shared_ptr<const PublishedState> current() const = 0;

  // Engine::timeline / Engine::series semantics: nullopt when unknown.
  virtual std::optional<Timeline> timeline(std::string_view job, std::int32_t rank,
                                           std::int64_t seconds) const = 0;
  virtual std::optional<Series> series(std::string_view job, std::string_view metric,
                                       std::int64_t window_ns, std::int64_t span_ns) const = 0;

  // The timeline of a rank that another collector owns (a head asks the
  // node that reported it), for ranks timeline() does not know; nullopt
  // when no one does. May block on the network for a few seconds.
  virtual std::optional<RemoteTimeline> remote_timeline(std::string_view /*job*/,
                                                        std::int32_t /*rank*/,
                                                        std::int64_t /*seconds*/) const {
    return std::nullopt;
  }

  // The series of `job` over all its ranks, `local` (series() of the same
  // arguments, null when it had none) and those other collectors own (a
  // head asks each node that reports ranks of the job, for the window named
  // `window` and `seconds`); nullopt when no other collector owns any.
  // May block on the network for a few seconds.
  virtual std::optional<RemoteSeries> remote_series(std::string_view /*job*/,
                                                    std::string_view /*metric*/,
                                                    std::string_view /*window*/,
                                                    std::int64_t /*seconds*/,
                                                    const Series* /*local*/) const {
    return std::nullopt;
  }
};

}  // namespace stallwatch::collector
