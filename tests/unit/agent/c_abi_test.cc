// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "fresh_process.h"
#include "test_collector.h"

extern "C" int stallwatch_c_abi_check(const char* endpoint);

namespace stallwatch::test {
namespace {

TEST(CAbi, EveryFunctionWorksFromC) {
  run_in_fresh_process([] {
    TestCollector collector;
    EXPECT_EQ(stallwatch_c_abi_check(collector.endpoint().c_str()), 0)
        << "line of the failed check in c_abi_test.c";
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); },
                                        std::chrono::seconds(30)));
    EXPECT_EQ(count_events(collector.received()), 6u);
    EXPECT_EQ(collector.received().back().job, "c-job");
  });
}

}  // namespace
}  // namespace stallwatch::test
