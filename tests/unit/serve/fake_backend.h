// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "serve/api_backend.h"

namespace stallwatch::collector::testing {

// A known snapshot: windows 10s/60s/300s/total; job "demo-slow" with ranks 0
// and 1 (rank 0: data_stall_ratio 0.61 over 60s, overlap_ratio NaN, NVML
// counters of devices 0 and 1; finalized counters: 398 s of wall, 0.61 of it
// data stall; rank 1: 397.123456789 s of wall), and job
// kOddJob (one rank, an id that needs escaping everywhere). `extra_ranks`
// adds ranks 2.. to demo-slow, for size tests.
std::shared_ptr<Snapshot> make_snapshot(std::uint64_t tick, int extra_ranks = 0);
std::shared_ptr<PublishedState> make_state(std::uint64_t tick, int extra_ranks = 0);

inline constexpr std::string_view kOddJob = "a/b c?d=\"e\"\\\n\xC3\xBC";

// An ApiBackend over whatever state the test publishes. timeline() answers
// for ranks in the snapshot (host threads, then regions on the lanes of GPU 0
// stream 7 and GPU 3's device-wide lane); series() for jobs in it. Thread-safe.
class FakeBackend : public ApiBackend {
 public:
  explicit FakeBackend(std::shared_ptr<const PublishedState> state) : state_(std::move(state)) {}

  void publish(std::shared_ptr<const PublishedState> state);

  std::shared_ptr<const PublishedState> current() const override;
  std::optional<Timeline> timeline(std::string_view job, std::int32_t rank,
                                   std::int64_t seconds) const override;
  std::optional<Series> series(std::string_view job, std::string_view metric,
                               std::int64_t window_ns, std::int64_t span_ns) const override;

  // Arguments of the last timeline()/series() call.
  std::int64_t last_timeline_seconds() const;
  std::int64_t last_series_window_ns() const;
  std::int64_t last_series_span_ns() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const PublishedState> state_;
  mutable std::int64_t timeline_seconds_ = 0;
  mutable std::int64_t series_window_ns_ = 0;
  mutable std::int64_t series_span_ns_ = 0;
};

}  // namespace stallwatch::collector::testing
