// SPDX-License-Identifier: MIT
// The agent's lifecycle through its public C ABI: lazy and explicit start,
// restart, stop, process exit with and without a collector, disabled mode,
// errors. Every test body runs in a fresh child process.

#include <gtest/gtest.h>
#include <stallwatch/stallwatch.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "agent_test_util.h"
#include "fresh_process.h"
#include "test_collector.h"

namespace stallwatch::test {
namespace {

TEST(AgentLifecycle, RestartAfterStopKeepsCountingSeq) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint(), {{"heartbeat_ms", "10"}}), SW_OK);
    ASSERT_TRUE(wait_connected(collector));
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_EQ(start_agent(collector.endpoint(), {{"heartbeat_ms", "10"}}), SW_OK);
    EXPECT_EQ(start_agent(collector.endpoint()), SW_ERR_ALREADY_STARTED);
    const sw_name_t name = sw_intern("again");
    ASSERT_EQ(sw_mark(name, name, 1), SW_OK);
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until(
        [](const auto& b) { return count_events(b) == 1 && b.back().final; }, kPatience));
    std::uint64_t previous_seq = 0;
    bool first = true;
    for (const ReceivedBatch& batch : collector.received()) {
      if (!first) {
        EXPECT_GT(batch.seq, previous_seq);
      }
      previous_seq = batch.seq;
      first = false;
    }
  });
}

// The child is forked before this process starts any thread (ZeroMQ's
// included), so it is a fresh process; it connects to the collector bound
// just after the fork.
TEST(AgentLifecycle, ExitSendsTheFinalBatch) {
  run_in_fresh_process([] {
    const std::string directory = TestCollector::make_temp_directory();
    const std::string endpoint = TestCollector::endpoint_in(directory);
    const pid_t pid = fork();
    if (pid == 0) {
      bool ok = start_agent(endpoint, {{"linger_ms", "10000"}}) == SW_OK;
      const sw_name_t name = sw_intern("before-exit");
      for (int i = 0; i < 100; ++i)
        ok = ok && sw_mark(name, name, i) == SW_OK;
      std::exit(ok ? 0 : 1);  // no sw_stop(): exit() flushes
    }
    TestCollector collector(directory);
    const ChildResult child = wait_child(pid, kPatience);
    ASSERT_TRUE(child.exited);
    ASSERT_EQ(child.exit_code, 0);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    EXPECT_EQ(count_events(collector.received()), 100u);
    EXPECT_TRUE(collector.received().back().final);
  });
}

TEST(AgentLifecycle, WithoutCollectorCallsReturnAtOnceAndEveryDropIsCounted) {
  run_in_fresh_process([] {
    char pattern[] = "/tmp/stallwatch-absent-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string endpoint = std::string("ipc://") + pattern + "/nobody.sock";
    ASSERT_EQ(start_agent(endpoint, {{"buffer_events", "1024"}}), SW_OK);
    const sw_name_t name = sw_intern("io");
    constexpr std::uint64_t kCalls = 200'000;
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t calls = 0;
    for (std::uint64_t i = 0; i < kCalls / 4; ++i) {
      sw_mark(name, name, static_cast<std::int64_t>(i));
      sw_counter(name, name, 1);
      const sw_region_t region = sw_region_begin(name, name);
      sw_region_end(region);
      calls += 4;
    }
    // Never blocked on the network: 200k calls take milliseconds, not seconds.
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    EXPECT_EQ(sw_flush(10000), SW_DROPPED);
    const sw_stats stats = agent_stats();
    EXPECT_EQ(stats.events_sent, 0u);
    EXPECT_EQ(stats.batches_sent, 0u);
    EXPECT_EQ(stats.queue_depth, 0u);
    EXPECT_EQ(stats.events_dropped, calls);
    EXPECT_EQ(stats.events_recorded, stats.events_lost_in_send);
    EXPECT_EQ(stats.events_recorded + stats.events_dropped - stats.events_lost_in_send, calls);
    EXPECT_GT(stats.send_failures, 0u);
    rmdir(pattern);
  });
}

TEST(AgentLifecycle, ProcessExitsQuicklyWithoutACollector) {
  run_in_fresh_process([] {
    const ChildResult child = run_child([] {
      setenv("STALLWATCH_COLLECTOR", "tcp://127.0.0.1:1", 1);  // nothing listens there
      const sw_name_t name = sw_intern("io");
      for (int i = 0; i < 50'000; ++i)
        sw_mark(name, name, i);
    });
    EXPECT_TRUE(child.exited);
    EXPECT_EQ(child.exit_code, 0);
    EXPECT_LT(child.elapsed, std::chrono::seconds(10));
  });
}

TEST(AgentLifecycle, ProcessExitIsBoundedWhenTheCollectorStopsReading) {
  run_in_fresh_process([] {
    const std::string directory = TestCollector::make_temp_directory();
    const std::string endpoint = TestCollector::endpoint_in(directory);
    const pid_t pid = fork();  // before any thread exists here, as above
    if (pid == 0) {
      bool ok = start_agent(endpoint, {{"send_hwm", "1"}, {"batch_events", "64"}}) == SW_OK;
      const sw_name_t name = sw_intern("io");
      for (int i = 0; i < 200'000; ++i)
        sw_mark(name, name, i);
      std::exit(ok ? 0 : 1);
    }
    TestCollector stalled(directory);  // bound, never reads
    const ChildResult child = wait_child(pid, std::chrono::seconds(60));
    EXPECT_TRUE(child.exited);
    EXPECT_EQ(child.exit_code, 0);
    EXPECT_LT(child.elapsed, std::chrono::seconds(10));
  });
}

TEST(AgentLifecycle, LazyStartFromTheEnvironment) {
  run_in_fresh_process([] {
    TestCollector collector;
    setenv("STALLWATCH_COLLECTOR", collector.endpoint().c_str(), 1);
    setenv("STALLWATCH_JOB", "from-env", 1);
    setenv("STALLWATCH_RANK", "3", 1);
    setenv("STALLWATCH_ROLE", "worker", 1);
    EXPECT_EQ(sw_is_enabled(), 1);
    const sw_name_t name = sw_intern("lazy");  // starts the agent
    ASSERT_NE(name, 0u);
    EXPECT_EQ(sw_start(nullptr), SW_ERR_ALREADY_STARTED);
    EXPECT_EQ(sw_mark(name, name, 1), SW_OK);
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    const ReceivedBatch& batch = collector.received().back();
    EXPECT_EQ(batch.job, "from-env");
    EXPECT_EQ(batch.rank, 3);
    EXPECT_EQ(batch.role, 1);
    EXPECT_EQ(batch.ppid, getppid());
  });
}

// sw_call_start and sw_call_end sit between a C library call and its caller's
// look at errno (libstallwatch_posix.so): they never change it, not when the
// first of them starts the agent from the environment, not on a thread's
// first event, and not on the recording path.
TEST(AgentLifecycle, TimingACallNeverChangesErrno) {
  run_in_fresh_process([] {
    TestCollector collector;
    setenv("STALLWATCH_COLLECTOR", collector.endpoint().c_str(), 1);
    errno = EBADF;
    const std::int64_t lazy = sw_call_start();  // starts the agent
    EXPECT_EQ(errno, EBADF);
    ASSERT_NE(lazy, 0);
    const sw_name_t cat = sw_intern("POSIX");
    const sw_name_t read = sw_intern("read");
    errno = EINTR;
    EXPECT_EQ(sw_call_end(cat, read, lazy, 1, 0), SW_OK);
    EXPECT_EQ(errno, EINTR);
    std::thread([&] {
      errno = ENOENT;
      const std::int64_t first = sw_call_start();  // registers this thread
      EXPECT_EQ(errno, ENOENT);
      EXPECT_EQ(sw_call_end(cat, read, first, 2, 0), SW_OK);
      EXPECT_EQ(errno, ENOENT);
    }).join();
    ASSERT_EQ(sw_stop(), SW_OK);
    errno = EAGAIN;
    EXPECT_EQ(sw_call_end(cat, read, lazy, 3, 0), SW_DROPPED);  // stopped: refused, counted
    EXPECT_EQ(errno, EAGAIN);
  });
}

TEST(AgentLifecycle, IsRunningNeverStartsTheAgent) {
  run_in_fresh_process([] {
    TestCollector collector;
    setenv("STALLWATCH_COLLECTOR", collector.endpoint().c_str(), 1);
    EXPECT_EQ(sw_is_running(), 0);
    EXPECT_EQ(sw_is_running(), 0);
    EXPECT_EQ(sw_stop(), SW_ERR_NOT_STARTED);  // still never started
    const sw_name_t name = sw_intern("running");
    ASSERT_NE(name, 0u);
    EXPECT_EQ(sw_is_running(), 1);
    const sw_region_t region = sw_region_begin_value(name, name, 77);
    EXPECT_EQ(sw_region_end_value(region, 5), SW_OK);
    ASSERT_EQ(sw_stop(), SW_OK);
    EXPECT_EQ(sw_is_running(), 0);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    std::vector<std::int64_t> values;
    for (const ReceivedBatch& batch : collector.received())
      for (const auto& event : batch.events)
        if (event.name == "running") values.push_back(event.value);
    EXPECT_EQ(values, (std::vector<std::int64_t>{77}));
  });
}

TEST(AgentLifecycle, DisabledMakesEveryCallANoOp) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_ENABLE", "0", 1);
    EXPECT_EQ(sw_is_enabled(), 0);
    EXPECT_EQ(sw_start(nullptr), SW_DISABLED);
    EXPECT_EQ(sw_intern("x"), 0u);
    EXPECT_EQ(sw_region_begin(1, 1), 0u);
    EXPECT_EQ(sw_region_end(0), SW_DISABLED);
    EXPECT_EQ(sw_mark(1, 1, 1), SW_DISABLED);
    EXPECT_EQ(sw_counter(1, 1, 1), SW_DISABLED);
    EXPECT_EQ(sw_counter_f64(1, 1, 1.0), SW_DISABLED);
    EXPECT_EQ(sw_complete(1, 1, 0, 1), SW_DISABLED);
    EXPECT_EQ(sw_flush(10), SW_DISABLED);
    EXPECT_EQ(sw_stop(), SW_DISABLED);
    const sw_stats stats = agent_stats();
    EXPECT_EQ(stats.events_recorded, 0u);
    EXPECT_EQ(stats.events_dropped, 0u);
    EXPECT_EQ(stats.threads, 0u);
  });
}

TEST(AgentLifecycle, LifecycleAndConfigurationErrorsAreStatusCodes) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_LOG", "0", 1);
    EXPECT_EQ(sw_stop(), SW_ERR_NOT_STARTED);
    EXPECT_EQ(sw_flush(10), SW_ERR_NOT_STARTED);
    EXPECT_EQ(sw_config_new(nullptr), SW_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sw_config_set(nullptr, "job", "x"), SW_ERR_INVALID_ARGUMENT);
    sw_config* config = nullptr;
    ASSERT_EQ(sw_config_new(&config), SW_OK);
    EXPECT_EQ(sw_config_set(config, nullptr, "x"), SW_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sw_config_set(config, "nope", "x"), SW_ERR_UNKNOWN_KEY);
    EXPECT_EQ(sw_config_set(config, "batch_events", "lots"), SW_ERR_BAD_VALUE);
    EXPECT_EQ(sw_config_set(config, "collector", "carrier-pigeon://home"), SW_OK);
    EXPECT_EQ(sw_start(config), SW_ERR_TRANSPORT);
    sw_config_free(config);
    sw_config_free(nullptr);
    EXPECT_EQ(sw_get_stats(nullptr), SW_ERR_INVALID_ARGUMENT);
    for (int status = -9; status <= 2; ++status) {
      EXPECT_STRNE(sw_strerror(status), "unknown status") << status;
    }
    EXPECT_STREQ(sw_strerror(12345), "unknown status");
  });
}

TEST(AgentLifecycle, StatsHonourTheCallersStructSize) {
  run_in_fresh_process([] {
    sw_stats stats{};
    std::memset(&stats, 0xAB, sizeof(stats));
    stats.size = offsetof(sw_stats, events_dropped);
    ASSERT_EQ(sw_get_stats(&stats), SW_OK);
    EXPECT_EQ(stats.size, offsetof(sw_stats, events_dropped));
    EXPECT_EQ(stats.events_recorded, 0u);
    std::uint64_t untouched = 0;
    std::memset(&untouched, 0xAB, sizeof(untouched));
    EXPECT_EQ(stats.events_dropped, untouched);
    stats.size = sizeof(stats);
    ASSERT_EQ(sw_get_stats(&stats), SW_OK);
    EXPECT_EQ(stats.pid, getpid());
    EXPECT_EQ(stats.ppid, getppid());
  });
}

TEST(AgentLifecycle, NamesAreStableAndResolvable) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_COLLECTOR", "tcp://127.0.0.1:1", 1);
    const sw_name_t a = sw_intern("alpha");
    EXPECT_NE(a, 0u);
    EXPECT_EQ(sw_intern_n("alpha-beta", 5), a);
    EXPECT_STREQ(sw_name_str(a), "alpha");
    EXPECT_EQ(sw_name_str(0), nullptr);
    EXPECT_EQ(sw_name_str(a + 1000), nullptr);
    EXPECT_EQ(sw_intern(nullptr), 0u);
    EXPECT_EQ(sw_intern(""), 0u);
    EXPECT_EQ(sw_intern(std::string(2000, 'z').c_str()), 0u);
  });
}

}  // namespace
}  // namespace stallwatch::test
