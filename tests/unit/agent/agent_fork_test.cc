// SPDX-License-Identifier: MIT
// fork() with a running agent, as data-loader workers do it.

#include <gtest/gtest.h>
#include <stallwatch/stallwatch.h>
#include <unistd.h>

#include <set>
#include <string>

#include "agent_test_util.h"
#include "fresh_process.h"
#include "test_collector.h"

namespace stallwatch::test {
namespace {

constexpr std::uint8_t kEnd = 1;

TEST(AgentFork, ChildSendsItsOwnEventsAsAWorkerOfItsParent) {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer cannot follow threads started in a child forked from a
  // multithreaded process ("dup thread"); the asan and default builds run it.
  GTEST_SKIP() << "not supported under ThreadSanitizer";
#endif
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint(), {{"heartbeat_ms", "10"}}), SW_OK);
    ASSERT_TRUE(wait_connected(collector));
    const sw_name_t cat = sw_intern("dataloader");
    const sw_name_t parent_name = sw_intern("parent");
    // Recorded but (most likely) not yet sent when fork() runs: the parent
    // sends them, the child must not.
    for (int i = 0; i < 500; ++i)
      ASSERT_EQ(sw_mark(cat, parent_name, i), SW_OK);
    const pid_t parent = getpid();

    const ChildResult child = run_child([&] {
      const sw_stats fresh = agent_stats();
      EXPECT_EQ(fresh.events_recorded, 0u);
      EXPECT_EQ(fresh.queue_depth, 0u);
      EXPECT_EQ(fresh.pid, getpid());
      EXPECT_EQ(fresh.ppid, parent);
      EXPECT_EQ(sw_is_enabled(), 1);
      EXPECT_STREQ(sw_name_str(cat), "dataloader");  // ids survive fork
      const sw_name_t child_name = sw_intern("child");
      EXPECT_NE(child_name, 0u);
      for (int i = 0; i < 300; ++i)
        ASSERT_EQ(sw_mark(cat, child_name, i), SW_OK);
      const sw_region_t region = sw_region_begin(cat, child_name);
      ASSERT_EQ(sw_region_end(region), SW_OK);
      ASSERT_EQ(sw_flush(30000), SW_OK);
      const sw_stats stats = agent_stats();
      EXPECT_EQ(stats.events_recorded, 302u);
      EXPECT_EQ(stats.events_sent, 302u);
      // exit() sends the final batch.
    });
    ASSERT_TRUE(child.exited);
    ASSERT_EQ(child.exit_code, 0);
    for (int i = 500; i < 510; ++i)
      ASSERT_EQ(sw_mark(cat, parent_name, i), SW_OK);
    ASSERT_EQ(sw_stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until(
        [&](const auto& b) { return has_final(b, parent) && has_final(b, child.pid); }, kPatience));

    std::size_t child_events = 0;
    std::set<std::int64_t> parent_values;
    std::uint64_t expected_child_seq = 0;
    for (const ReceivedBatch& batch : collector.received()) {
      if (batch.pid == parent) {
        EXPECT_EQ(batch.role, 0);
        for (const ReceivedEvent& e : batch.events) {
          EXPECT_EQ(e.name, "parent");
          EXPECT_TRUE(parent_values.insert(e.value).second) << "duplicate " << e.value;
        }
        continue;
      }
      ASSERT_EQ(batch.pid, child.pid);
      EXPECT_EQ(batch.ppid, parent);
      EXPECT_EQ(batch.role, 1) << "a forked child reports as a worker";
      EXPECT_EQ(batch.job, "unit-test");
      EXPECT_EQ(batch.seq, expected_child_seq++) << "the child's seq starts at 0";
      EXPECT_GE(batch.start_ns, collector.received().front().start_ns);
      for (const ReceivedEvent& e : batch.events) {
        if (e.kind != kEnd) {
          EXPECT_EQ(e.cat, "dataloader");
          EXPECT_EQ(e.name, "child");
        }
        EXPECT_EQ(e.tid, static_cast<std::uint32_t>(child.pid)) << "the child's main thread";
        ++child_events;
      }
    }
    EXPECT_EQ(child_events, 302u);
    EXPECT_EQ(parent_values.size(), 510u);  // each parent event exactly once, never from the child
    expect_seq_contiguous(collector.received(), parent, agent_stats());
  });
}

TEST(AgentFork, ChildOfAStoppedAgentStaysStopped) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_COLLECTOR", "tcp://127.0.0.1:1", 1);
    const sw_name_t name = sw_intern("x");
    ASSERT_EQ(sw_stop(), SW_OK);
    const ChildResult child = run_child([&] {
      EXPECT_EQ(sw_mark(name, name, 1), SW_DROPPED);
      EXPECT_EQ(agent_stats().events_dropped, 1u);
    });
    EXPECT_TRUE(child.exited);
    EXPECT_EQ(child.exit_code, 0);
  });
}

}  // namespace
}  // namespace stallwatch::test
