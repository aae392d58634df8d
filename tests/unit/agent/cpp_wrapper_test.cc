// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <stallwatch/stallwatch.hpp>
#include <type_traits>
#include <utility>

#include "agent_test_util.h"
#include "fresh_process.h"
#include "test_collector.h"

namespace stallwatch::test {
namespace {

static_assert(!std::is_copy_constructible_v<Region>);
static_assert(std::is_nothrow_move_constructible_v<Region>);
static_assert(!std::is_copy_constructible_v<Config>);
static_assert(std::is_nothrow_move_assignable_v<Config>);

TEST(CppWrapper, ScopedRegionsNamesConfigAndStats) {
  run_in_fresh_process([] {
    TestCollector collector;
    Config config;
    ASSERT_TRUE(config.valid());
    EXPECT_EQ(config.set("collector", collector.endpoint().c_str()), SW_OK);
    EXPECT_EQ(config.set("job", "cpp-job"), SW_OK);
    EXPECT_EQ(config.set("linger_ms", "forever"), SW_ERR_BAD_VALUE);
    Config moved = std::move(config);
    EXPECT_FALSE(config.valid());
    ASSERT_EQ(start(moved), SW_OK);
    EXPECT_TRUE(is_enabled());

    const Name cat("compute");
    const Name forward(std::string_view("forward-pass").substr(0, 7));
    EXPECT_EQ(cat.str(), "compute");
    EXPECT_EQ(forward.str(), "forward");
    EXPECT_EQ(Name("compute"), cat);
    EXPECT_FALSE(Name());
    {
      Region outer(cat, forward);
      EXPECT_NE(outer.token(), 0u);
      Region inner(cat, forward);
      Region taken = std::move(inner);
      EXPECT_EQ(inner.token(), 0u);
      EXPECT_EQ(taken.end(), SW_OK);
      EXPECT_EQ(taken.end(), SW_DISABLED);  // already ended: nothing recorded
    }
    EXPECT_EQ(mark(cat, forward, 7), SW_OK);
    EXPECT_EQ(counter(cat, forward, std::int64_t{8}), SW_OK);
    EXPECT_EQ(counter(cat, forward, 0.5), SW_OK);
    EXPECT_EQ(complete(cat, forward, now_ns(), 5), SW_OK);
    ASSERT_EQ(flush(30000), SW_OK);
    const sw_stats s = stats();
    EXPECT_EQ(s.events_recorded, 8u);  // 2 regions x 2 + 4
    EXPECT_EQ(s.events_sent, 8u);
    EXPECT_STREQ(strerror(SW_DROPPED), sw_strerror(SW_DROPPED));
    ASSERT_EQ(stop(), SW_OK);

    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    int begins = 0, ends = 0;
    for (const ReceivedBatch& batch : collector.received()) {
      EXPECT_EQ(batch.job, "cpp-job");
      for (const ReceivedEvent& e : batch.events) {
        begins += e.kind == 0;
        ends += e.kind == 1;
      }
    }
    EXPECT_EQ(begins, 2);
    EXPECT_EQ(ends, 2);
  });
}

TEST(CppWrapper, DeviceLanesAndTheGpuSession) {
  run_in_fresh_process([] {
    TestCollector collector;
    ASSERT_EQ(start_agent(collector.endpoint()), SW_OK);
    EXPECT_EQ(gpu_start("gpu"), SW_ERR_BAD_VALUE);
    ASSERT_EQ(gpu_start("cuda-events"), SW_OK);
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUDA_EVENTS));
    const sw_lane_t lane = device_lane(2, 9);
    EXPECT_EQ(lane, sw_device_lane(2, 9));
    const Name gpu("gpu");
    EXPECT_EQ(complete_on(lane, gpu, Name("forward"), now_ns() - 1000, 1000), SW_OK);
    EXPECT_EQ(counter_on(lane, Name("gpu_counters"), Name("util"), 0.5), SW_OK);
    EXPECT_EQ(complete_on(0, gpu, Name("forward"), now_ns(), 1), SW_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu_stop(), SW_OK);
    ASSERT_EQ(stop(), SW_OK);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    int on_lane = 0;
    for (const ReceivedBatch& batch : collector.received()) {
      for (const ReceivedEvent& e : batch.events)
        on_lane += e.tid == lane;
    }
    EXPECT_EQ(on_lane, 2);
    EXPECT_EQ(collector.received().back().device_source, SW_DEVICE_SOURCE_CUDA_EVENTS);
  });
}

}  // namespace
}  // namespace stallwatch::test
