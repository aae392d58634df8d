// SPDX-License-Identifier: MIT
// The agent through its public C ABI, against a test collector. Every test
// body runs in a fresh child process (the agent is process-wide).

#include <gtest/gtest.h>
#include <stallwatch/stallwatch.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "agent_test_util.h"
#include "fresh_process.h"
#include "test_collector.h"

namespace stallwatch::test {
namespace {

constexpr std::uint8_t kBegin = 0, kEnd = 1, kComplete = 2, kMark = 3, kCounter = 4;

TEST(AgentApi, AllEventsArriveInPerThreadOrderWithContiguousSeq) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint(), {{"heartbeat_ms", "10"}}), SW_OK);
    ASSERT_TRUE(wait_connected(collector));
    const sw_name_t cat = sw_intern("compute");
    const sw_name_t step = sw_intern("step");
    const sw_name_t forward = sw_intern("forward");
    constexpr int kThreads = 4;
    constexpr int kPerThread = 3000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kPerThread; ++i) {
          EXPECT_EQ(sw_mark(cat, step, i), SW_OK);
          const sw_region_t region = sw_region_begin(cat, forward);
          EXPECT_EQ(sw_region_end(region), SW_OK);
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
    ASSERT_EQ(sw_flush(30000), SW_OK);
    const std::size_t expected = kThreads * kPerThread * 3;
    ASSERT_TRUE(collector.receive_until(
        [&](const auto& batches) { return count_events(batches) >= expected; }, kPatience));
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));

    const sw_stats stats = agent_stats();
    EXPECT_EQ(stats.events_recorded, expected);
    EXPECT_EQ(stats.events_dropped, 0u);
    EXPECT_EQ(stats.events_sent, expected);
    EXPECT_EQ(stats.queue_depth, 0u);
    EXPECT_EQ(count_events(collector.received()), expected);
    expect_seq_contiguous(collector.received(), getpid(), stats);

    std::map<std::uint32_t, std::int64_t> next_step;
    std::map<std::uint32_t, std::uint32_t> open_region;
    std::map<std::uint32_t, std::int64_t> last_ts;
    for (const ReceivedBatch& batch : collector.received()) {
      EXPECT_EQ(batch.job, "unit-test");
      EXPECT_EQ(batch.pid, getpid());
      EXPECT_EQ(batch.role, 0);
      for (const ReceivedEvent& e : batch.events) {
        EXPECT_GE(e.ts_ns, last_ts[e.tid]) << "timestamps of one thread went backwards";
        last_ts[e.tid] = e.ts_ns;
        if (e.kind == kMark) {
          EXPECT_EQ(e.cat, "compute");
          EXPECT_EQ(e.name, "step");
          EXPECT_EQ(e.value, next_step[e.tid]++) << "marks of thread " << e.tid << " reordered";
        } else if (e.kind == kBegin) {
          EXPECT_EQ(e.name, "forward");
          EXPECT_EQ(open_region[e.tid], 0u);
          open_region[e.tid] = e.region_id;
        } else {
          ASSERT_EQ(e.kind, kEnd);
          EXPECT_EQ(open_region[e.tid], e.region_id);
          open_region[e.tid] = 0;
        }
      }
    }
    EXPECT_EQ(next_step.size(), static_cast<std::size_t>(kThreads));
    for (const auto& [tid, steps] : next_step)
      EXPECT_EQ(steps, kPerThread) << "tid " << tid;
    EXPECT_EQ(collector.invalid_frames(), 0u);
  });
}

TEST(AgentApi, HeartbeatsArriveWhileIdleAndCarryTheSendersClock) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint(), {{"heartbeat_ms", "50"}}), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& batches) { return batches.size() >= 5; },
                                        kPatience));
    std::int64_t previous = 0;
    for (const ReceivedBatch& batch : collector.received()) {
      EXPECT_TRUE(batch.events.empty());
      EXPECT_FALSE(batch.final);
      EXPECT_GT(batch.sent_at_ns, previous);
      EXPECT_GE(batch.sent_at_ns, batch.start_ns);
      previous = batch.sent_at_ns;
    }
    EXPECT_LE(previous, sw_now_ns());
    ASSERT_EQ(sw_stop(), SW_OK);  // joins the sender: its counters are final
    EXPECT_GE(agent_stats().heartbeats_sent, 5u);
  });
}

TEST(AgentApi, StopSendsAFinalBatchAndLaterCallsAreDroppedAndCounted) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint(), {{"heartbeat_ms", "10"}}), SW_OK);
    ASSERT_TRUE(wait_connected(collector));
    const sw_name_t cat = sw_intern("pipeline");
    const sw_name_t epoch = sw_intern("epoch.start");
    for (int i = 0; i < 10; ++i)
      ASSERT_EQ(sw_mark(cat, epoch, i), SW_OK);
    ASSERT_EQ(sw_stop(), SW_OK);
    EXPECT_EQ(sw_is_enabled(), 0);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    const ReceivedBatch& last = collector.received().back();
    EXPECT_TRUE(last.final);
    EXPECT_EQ(count_events(collector.received()), 10u);

    EXPECT_EQ(sw_mark(cat, epoch, 10), SW_DROPPED);
    const sw_region_t region = sw_region_begin(cat, epoch);
    EXPECT_NE(region, 0u);
    EXPECT_EQ(sw_region_end(region), SW_DROPPED);
    EXPECT_EQ(sw_stop(), SW_ERR_NOT_STARTED);
    const sw_stats stats = agent_stats();
    EXPECT_EQ(stats.events_recorded, 10u);
    EXPECT_EQ(stats.events_sent, 10u);
    EXPECT_EQ(stats.events_dropped, 3u);
    EXPECT_EQ(stats.queue_depth, 0u);
    expect_seq_contiguous(collector.received(), getpid(), stats);
  });
}

TEST(AgentApi, ARegionClosedOnAnotherThreadCarriesTheOpenersTid) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint()), SW_OK);
    const sw_name_t cat = sw_intern("dataloader");
    const sw_name_t fetch = sw_intern("fetch");
    sw_region_t region = 0;
    std::uint32_t opener = 0;
    std::thread([&] {
      opener = static_cast<std::uint32_t>(gettid());
      region = sw_region_begin(cat, fetch);
    }).join();
    ASSERT_EQ(region >> 32, opener);
    ASSERT_EQ(sw_region_end(region), SW_OK);
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    std::vector<ReceivedEvent> events;
    for (const ReceivedBatch& batch : collector.received()) {
      events.insert(events.end(), batch.events.begin(), batch.events.end());
    }
    ASSERT_EQ(events.size(), 2u);
    const ReceivedEvent& begin = events[0].kind == kBegin ? events[0] : events[1];
    const ReceivedEvent& end = events[0].kind == kEnd ? events[0] : events[1];
    EXPECT_EQ(begin.tid, opener);
    EXPECT_EQ(end.tid, opener);
    EXPECT_EQ(end.region_id, begin.region_id);
    EXPECT_NE(begin.region_id, 0u);
    EXPECT_GE(end.ts_ns, begin.ts_ns);
  });
}

TEST(AgentApi, RegionEndValueTravelsOnTheEnd) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint()), SW_OK);
    const sw_name_t cat = sw_intern("dataloader");
    const sw_name_t wait = sw_intern("fetch.iter");
    const sw_region_t plain = sw_region_begin(cat, wait);
    ASSERT_EQ(sw_region_end(plain), SW_OK);
    const sw_region_t exhausted = sw_region_begin(cat, wait);
    ASSERT_EQ(sw_region_end_value(exhausted, SW_END_LOOP_EXHAUSTED), SW_OK);
    EXPECT_EQ(sw_region_end_value(0, 7), SW_DISABLED);
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    std::map<std::uint32_t, std::int64_t> end_values;  // region id -> END value
    for (const ReceivedBatch& batch : collector.received()) {
      for (const ReceivedEvent& e : batch.events) {
        if (e.kind == kEnd) end_values[e.region_id] = e.value;
      }
    }
    ASSERT_EQ(end_values.size(), 2u);
    EXPECT_EQ(end_values.at(static_cast<std::uint32_t>(plain)), 0);
    EXPECT_EQ(end_values.at(static_cast<std::uint32_t>(exhausted)), SW_END_LOOP_EXHAUSTED);
  });
}

// A call timed whole is one Complete: its start and duration, its value
// (flag CompleteValue) and its subject in region_id.
TEST(AgentApi, ACallTimedWholeIsOneCompleteWithItsValueAndSubject) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint()), SW_OK);
    const sw_name_t cat = sw_intern("POSIX");
    const sw_name_t read = sw_intern("read");
    const sw_name_t file = sw_intern("/data/shard-0");
    const std::int64_t before = sw_now_ns();
    const std::int64_t start = sw_call_start();
    ASSERT_NE(start, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_EQ(sw_call_end(cat, read, start, 65536, file), SW_OK);
    const std::int64_t after = sw_now_ns();
    EXPECT_EQ(sw_call_end(cat, read, 0, 1, file), SW_DISABLED);
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    std::vector<ReceivedEvent> events;
    for (const ReceivedBatch& batch : collector.received())
      events.insert(events.end(), batch.events.begin(), batch.events.end());
    ASSERT_EQ(events.size(), 1u);
    const ReceivedEvent& e = events[0];
    EXPECT_EQ(e.kind, kComplete);
    EXPECT_EQ(e.cat, "POSIX");
    EXPECT_EQ(e.name, "read");
    EXPECT_EQ(e.flags, 2);  // CompleteValue
    EXPECT_EQ(e.value, 65536);
    EXPECT_EQ(e.region_id, file);
    EXPECT_EQ(e.tid, static_cast<std::uint32_t>(gettid()));
    EXPECT_GE(e.ts_ns, before - 1'000'000);  // the sender's clock mapping may move a little
    EXPECT_GE(e.dur_ns, 2'000'000);
    EXPECT_LE(e.ts_ns + e.dur_ns, after + 1'000'000);
  });
}

// A call whose duration does not fit the record's 32-bit tick count is a
// BEGIN (value: the subject) and an END (value: the bytes) on one region id;
// one just under the limit is still one Complete. The stamps are moved back
// by 2^36 and 2^31 stamp units (clock ticks, or TSC ticks where calls are
// TSC-timed): as long as the calls themselves are short, the first is over
// the limit and the second under it at any rate from 0.5 to 16 GHz.
TEST(AgentApi, ACallLongerThan2To32TicksIsABeginAndAnEnd) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint()), SW_OK);
    const sw_name_t cat = sw_intern("POSIX");
    const sw_name_t read = sw_intern("read");
    const sw_name_t file = sw_intern("/data/shard-1");
    const std::int64_t long_start = sw_call_start();
    ASSERT_NE(long_start, 0);
    ASSERT_EQ(sw_call_end(cat, read, long_start - (std::int64_t{1} << 36), 4096, file), SW_OK);
    // On another thread: a thread's times never go back on the wire, so on
    // this one the stamp would be clamped to the END above.
    std::thread([&] {
      const std::int64_t short_start = sw_call_start();
      ASSERT_NE(short_start, 0);
      ASSERT_EQ(sw_call_end(cat, read, short_start - (std::int64_t{1} << 31), 512, file), SW_OK);
    }).join();
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    std::vector<ReceivedEvent> events;
    for (const ReceivedBatch& batch : collector.received())
      events.insert(events.end(), batch.events.begin(), batch.events.end());
    ASSERT_EQ(events.size(), 3u);
    // Two threads: their events may come in either order.
    std::map<std::uint8_t, ReceivedEvent> by_kind;
    for (const ReceivedEvent& e : events)
      by_kind[e.kind] = e;
    ASSERT_EQ(by_kind.size(), 3u);
    const ReceivedEvent& begin = by_kind[kBegin];
    const ReceivedEvent& end = by_kind[kEnd];
    EXPECT_EQ(begin.cat, "POSIX");
    EXPECT_EQ(begin.name, "read");
    EXPECT_EQ(begin.value, file);
    EXPECT_EQ(end.value, 4096);
    EXPECT_EQ(end.region_id, begin.region_id);
    EXPECT_EQ(end.tid, begin.tid);
    // 2^36 ticks are more than a second at any clock rate up to 16 GHz.
    EXPECT_GT(end.ts_ns - begin.ts_ns, 1'000'000'000);
    const ReceivedEvent& whole = by_kind[kComplete];
    EXPECT_EQ(whole.flags, 2);  // CompleteValue
    EXPECT_EQ(whole.value, 512);
    EXPECT_EQ(whole.region_id, file);
    EXPECT_GT(whole.dur_ns, 200'000'000);  // 2^31 ticks at up to 8 GHz
    EXPECT_LT(whole.dur_ns, end.ts_ns - begin.ts_ns);
  });
}

TEST(AgentApi, CompleteMarkAndCountersKeepTheirPayloads) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint(), {{"device_source", "cupti"}}), SW_OK);
    const sw_name_t cat = sw_intern("pipeline");
    const sw_name_t name = sw_intern("batch_size");
    const std::int64_t start = sw_now_ns();
    EXPECT_EQ(sw_complete(cat, name, start, 1234), SW_OK);
    EXPECT_EQ(sw_complete(cat, name, start, -1), SW_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sw_counter(cat, name, 256), SW_OK);
    EXPECT_EQ(sw_counter_f64(cat, name, 0.5), SW_OK);
    EXPECT_EQ(sw_mark(cat, name, -3), SW_OK);
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    std::vector<ReceivedEvent> events;
    for (const ReceivedBatch& batch : collector.received()) {
      EXPECT_EQ(batch.device_source, 1);  // Cupti
      events.insert(events.end(), batch.events.begin(), batch.events.end());
    }
    ASSERT_EQ(events.size(), 4u);
    EXPECT_EQ(events[0].kind, kComplete);
    EXPECT_EQ(events[0].ts_ns, start);
    EXPECT_EQ(events[0].dur_ns, 1234);
    EXPECT_EQ(events[1].kind, kCounter);
    EXPECT_EQ(events[1].value, 256);
    EXPECT_EQ(events[1].flags, 0);
    EXPECT_EQ(events[2].kind, kCounter);
    EXPECT_EQ(events[2].flags, 1);
    double value = 0;
    std::memcpy(&value, &events[2].value, sizeof(value));
    EXPECT_EQ(value, 0.5);
    EXPECT_EQ(events[3].kind, kMark);
    EXPECT_EQ(events[3].value, -3);
    EXPECT_GE(events[3].ts_ns, start);
  });
}

TEST(AgentApi, ExitedThreadsAreDrainedAndTheirBuffersFreed) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint()), SW_OK);
    const sw_name_t name = sw_intern("short-lived");
    for (int t = 0; t < 8; ++t) {
      std::thread([&] {
        for (int i = 0; i < 100; ++i)
          ASSERT_EQ(sw_mark(name, name, i), SW_OK);
      }).join();
    }
    EXPECT_EQ(sw_mark(name, name, -1), SW_OK);  // the main thread keeps a buffer
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (agent_stats().threads > 1 && std::chrono::steady_clock::now() < deadline) {
      sw_flush(1000);
    }
    const sw_stats stats = agent_stats();
    EXPECT_EQ(stats.threads, 1u);
    EXPECT_EQ(stats.events_recorded, 801u);  // freed buffers still count
    ASSERT_TRUE(
        collector.receive_until([](const auto& b) { return count_events(b) == 801; }, kPatience));
  });
}

TEST(AgentApi, ManyThreadsAtOnceAccountExactly) {
  run_in_fresh_process([] {
    TestCollector collector;
    // A small ring so that some calls are refused while the sender catches up.
    ASSERT_EQ(start_agent(collector.endpoint(), {{"buffer_events", "256"}, {"send_hwm", "1000"}}),
              SW_OK);
    const sw_name_t cat = sw_intern("compute");
    const sw_name_t name = sw_intern("work");
    constexpr int kThreads = 16;
    constexpr int kRegions = 4000;
    std::atomic<std::uint64_t> ended{0}, end_dropped{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kRegions; ++i) {
          const sw_region_t region = sw_region_begin(cat, name);
          ASSERT_NE(region, 0u);
          const int rc = sw_region_end(region);
          ASSERT_TRUE(rc == SW_OK || rc == SW_DROPPED) << rc;
          (rc == SW_OK ? ended : end_dropped)++;
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    const sw_stats stats = agent_stats();
    constexpr std::uint64_t kCalls = 2ull * kThreads * kRegions;
    EXPECT_EQ(stats.events_recorded + stats.events_dropped - stats.events_lost_in_send, kCalls);
    // An END is refused only when its BEGIN was (the ring keeps a reserve for ENDs).
    EXPECT_EQ(ended.load() * 2, stats.events_recorded);
    EXPECT_EQ(end_dropped.load() * 2, stats.events_dropped - stats.events_lost_in_send);
    EXPECT_EQ(stats.events_recorded, stats.events_sent + stats.events_lost_in_send);
    EXPECT_EQ(stats.queue_depth, 0u);
    EXPECT_EQ(count_events(collector.received()), stats.events_sent);
    std::uint64_t reported_drops = 0;
    for (const ReceivedBatch& batch : collector.received())
      reported_drops += batch.dropped_since_last;
    if (stats.send_failures == 0) {
      EXPECT_EQ(reported_drops, stats.events_dropped);
    }
    // Every BEGIN the collector sees is closed by the next END of its thread.
    ASSERT_EQ(stats.send_failures, 0u);
    std::map<std::uint32_t, std::uint32_t> open;
    for (const ReceivedBatch& batch : collector.received()) {
      for (const ReceivedEvent& e : batch.events) {
        if (e.kind == kBegin) {
          EXPECT_EQ(open[e.tid], 0u);
          open[e.tid] = e.region_id;
        } else if (e.kind == kEnd) {
          EXPECT_EQ(open[e.tid], e.region_id);
          open[e.tid] = 0;
        }
      }
    }
  });
}

}  // namespace
}  // namespace stallwatch::test
