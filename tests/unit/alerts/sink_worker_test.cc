// SPDX-License-Identifier: MIT
#include "alerts/sink_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace stallwatch::collector {
namespace {

using namespace std::chrono_literals;

// Records deliveries; fails the first `failures` calls; can block until released.
class FakeSink final : public AlertSink {
 public:
  struct Shared {
    std::mutex mutex;
    std::vector<std::vector<std::string>> batches;  // ids per deliver() call
    std::atomic<int> calls{0};
    std::atomic<int> failures{0};
    std::atomic<bool> block{false};
  };
  explicit FakeSink(std::shared_ptr<Shared> s) : s_(std::move(s)) {}

  std::string deliver(std::span<const Alert> alerts) override {
    while (s_->block)
      std::this_thread::sleep_for(1ms);
    ++s_->calls;
    if (s_->failures > 0) {
      --s_->failures;
      return "connection refused";
    }
    std::vector<std::string> ids;
    for (const Alert& a : alerts)
      ids.push_back(a.id + ":" + std::string(to_string(a.phase)));
    std::lock_guard lock(s_->mutex);
    s_->batches.push_back(ids);
    return {};
  }

 private:
  std::shared_ptr<Shared> s_;
};

Alert alert(const std::string& id, AlertPhase phase = AlertPhase::kFiring) {
  Alert a;
  a.id = id;
  a.phase = phase;
  return a;
}

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return done();
}

SinkWorkerOptions fast_options() {
  SinkWorkerOptions o;
  o.name = "fake";
  o.kind = "fake";
  o.initial_backoff = 10ms;
  o.max_backoff = 40ms;
  return o;
}

TEST(SinkWorkerTest, DeliversInOrderAndCounts) {
  auto shared = std::make_shared<FakeSink::Shared>();
  SinkWorker w(std::make_unique<FakeSink>(shared), fast_options());
  w.start();
  EXPECT_TRUE(w.enqueue(alert("a")));
  EXPECT_TRUE(w.enqueue(alert("a", AlertPhase::kResolved)));
  ASSERT_TRUE(eventually([&] { return w.stats().sent == 2; }));
  std::vector<std::string> all;
  {
    std::lock_guard lock(shared->mutex);
    for (const auto& b : shared->batches)
      all.insert(all.end(), b.begin(), b.end());
  }
  EXPECT_EQ(all, (std::vector<std::string>{"a:firing", "a:resolved"}));
  EXPECT_EQ(w.stats().failed_attempts, 0u);
}

TEST(SinkWorkerTest, RetriesWithBackoffThenSucceeds) {
  auto shared = std::make_shared<FakeSink::Shared>();
  shared->failures = 2;
  SinkWorker w(std::make_unique<FakeSink>(shared), fast_options());
  w.start();
  w.enqueue(alert("a"));
  ASSERT_TRUE(eventually([&] { return w.stats().sent == 1; }));
  const SinkStats s = w.stats();
  EXPECT_EQ(s.failed_attempts, 2u);
  EXPECT_EQ(s.dropped_retries, 0u);
  EXPECT_EQ(shared->calls, 3);
}

TEST(SinkWorkerTest, GivesUpAfterMaxAttemptsAndCountsTheDrop) {
  auto shared = std::make_shared<FakeSink::Shared>();
  shared->failures = 100;
  auto o = fast_options();
  o.max_attempts = 3;
  SinkWorker w(std::make_unique<FakeSink>(shared), o);
  w.start();
  w.enqueue(alert("a"));
  ASSERT_TRUE(eventually([&] { return w.stats().dropped_retries == 1; }));
  EXPECT_EQ(w.stats().failed_attempts, 3u);
  EXPECT_EQ(w.stats().sent, 0u);
  EXPECT_EQ(shared->calls, 3);
}

TEST(SinkWorkerTest, EnqueueNeverWaitsForASlowSinkAndDropsWhenFull) {
  auto shared = std::make_shared<FakeSink::Shared>();
  shared->block = true;
  auto o = fast_options();
  o.queue_capacity = 4;
  o.max_batch = 1;
  SinkWorker w(std::make_unique<FakeSink>(shared), o);
  w.start();
  const auto t0 = std::chrono::steady_clock::now();
  int accepted = 0;
  for (int i = 0; i < 100; ++i)
    accepted += w.enqueue(alert("a" + std::to_string(i)));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);  // generous: it is 100 mutex locks
  // 4 queued plus at most one taken by the blocked sender thread.
  EXPECT_GE(accepted, 4);
  EXPECT_LE(accepted, 5);
  EXPECT_EQ(w.stats().dropped_queue_full, static_cast<std::uint64_t>(100 - accepted));
  shared->block = false;
  ASSERT_TRUE(eventually([&] { return w.stats().sent == static_cast<std::uint64_t>(accepted); }));
}

TEST(SinkWorkerTest, RepeatsFiringAlertsUntilResolved) {
  auto shared = std::make_shared<FakeSink::Shared>();
  auto o = fast_options();
  o.repeat_interval = 50ms;
  SinkWorker w(std::make_unique<FakeSink>(shared), o);
  w.start();
  w.enqueue(alert("a"));
  w.enqueue(alert("b"));
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(shared->mutex);
    return shared->batches.size() >= 3;
  }));
  w.enqueue(alert("a", AlertPhase::kResolved));
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(shared->mutex);
    for (const auto& b : shared->batches) {
      if (b == std::vector<std::string>{"a:resolved"}) return true;
    }
    return false;
  }));
  const std::size_t seen = [&] {
    std::lock_guard lock(shared->mutex);
    return shared->batches.size();
  }();
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(shared->mutex);
    return shared->batches.size() >= seen + 2;
  }));
  std::lock_guard lock(shared->mutex);
  // After the resolution only b is repeated.
  EXPECT_EQ(shared->batches.back(), (std::vector<std::string>{"b:firing"}));
  bool repeated_both = false;
  for (const auto& b : shared->batches)
    repeated_both = repeated_both || b == std::vector<std::string>{"a:firing", "b:firing"};
  EXPECT_TRUE(repeated_both);
}

TEST(SinkWorkerTest, RateLimitDropsNotificationsOverTheLimit) {
  auto shared = std::make_shared<FakeSink::Shared>();
  auto o = fast_options();
  o.max_per_minute = 2;
  o.max_batch = 1;
  SinkWorker w(std::make_unique<FakeSink>(shared), o);
  w.start();
  for (int i = 0; i < 5; ++i)
    w.enqueue(alert("a" + std::to_string(i)));
  ASSERT_TRUE(eventually([&] {
    const auto s = w.stats();
    return s.sent + s.dropped_rate_limited == 5;
  }));
  EXPECT_EQ(w.stats().sent, 2u);
  EXPECT_EQ(w.stats().dropped_rate_limited, 3u);
}

TEST(SinkWorkerTest, StopDrainsTheQueueWithinTheBound) {
  auto shared = std::make_shared<FakeSink::Shared>();
  SinkWorker w(std::make_unique<FakeSink>(shared), fast_options());
  w.start();
  for (int i = 0; i < 10; ++i)
    w.enqueue(alert("a" + std::to_string(i)));
  w.stop(5s);
  EXPECT_EQ(w.stats().sent, 10u);
  EXPECT_FALSE(w.enqueue(alert("late")));
}

TEST(SinkWorkerTest, StopAbandonsAFailingSinkInsteadOfHanging) {
  auto shared = std::make_shared<FakeSink::Shared>();
  shared->failures = 1000;
  auto o = fast_options();
  o.initial_backoff = 10s;
  o.max_attempts = 10;
  SinkWorker w(std::make_unique<FakeSink>(shared), o);
  w.start();
  w.enqueue(alert("a"));
  ASSERT_TRUE(eventually([&] { return w.stats().failed_attempts >= 1; }));
  const auto t0 = std::chrono::steady_clock::now();
  w.stop(100ms);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(w.stats().dropped_retries, 1u);
}

}  // namespace
}  // namespace stallwatch::collector
