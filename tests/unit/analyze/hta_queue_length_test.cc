// SPDX-License-Identifier: MIT
#include "hta_queue_length.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hta_test_traces.h"

// Expected values: HTA's own output, tests/data/kineto/hta-reference/. The
// means and deviations depend on the order HTA's unstable sort leaves
// launches and kernels that start in the same µs, so they check that too.
namespace stallwatch::collector {
namespace {

struct Row {
  std::int64_t rank, stream;
  std::size_t count;
  double mean, stddev, min, p25, p50, p75, max;
};

void expect_rows(const std::vector<HtaQueueLength>& got, const std::vector<Row>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Describe& d = got[i].queue_length;
    EXPECT_EQ(got[i].rank, want[i].rank) << i;
    EXPECT_EQ(got[i].stream, want[i].stream) << i;
    EXPECT_EQ(d.count, want[i].count) << i;
    EXPECT_NEAR(d.mean, want[i].mean, 5e-7) << i;
    EXPECT_NEAR(d.std, want[i].stddev, 5e-7) << i;
    EXPECT_DOUBLE_EQ(d.min, want[i].min) << i;
    EXPECT_DOUBLE_EQ(d.p25, want[i].p25) << i;
    EXPECT_DOUBLE_EQ(d.p50, want[i].p50) << i;
    EXPECT_DOUBLE_EQ(d.p75, want[i].p75) << i;
    EXPECT_DOUBLE_EQ(d.max, want[i].max) << i;
    EXPECT_EQ(got[i].blocked_us, 0) << i;  // never 1024 deep
  }
}

TEST(HtaQueueLength, ReproducesHtaOnTheTwoRankNcclTrace) {
  expect_rows(hta_two_rank().queue_lengths, {{0, 7, 1052, 23.619772, 19.977006, 0, 3, 22, 38, 76},
                                             {0, 23, 126, 0.595238, 0.683269, 0, 0, 1, 1, 4},
                                             {0, 25, 16, 4, 2.422120, 0, 2, 4, 6, 8},
                                             {0, 84, 8, 0.5, 0.534522, 0, 0, 0.5, 1, 1},
                                             {0, 203, 2, 0.5, 0.707107, 0, 0.25, 0.5, 0.75, 1},
                                             {1, 7, 1002, 24.665669, 21.571825, 0, 3, 22.5, 42, 75},
                                             {1, 23, 126, 0.547619, 0.545632, 0, 0, 1, 1, 2},
                                             {1, 25, 16, 4, 2.422120, 0, 2, 4, 6, 8},
                                             {1, 84, 8, 0.5, 0.534522, 0, 0, 0.5, 1, 1},
                                             {1, 203, 2, 0.5, 0.707107, 0, 0.25, 0.5, 0.75, 1}});
}

TEST(HtaQueueLength, ReproducesHtaOnTheNanosecondResolutionTrace) {
  expect_rows(hta_ns_resolution().queue_lengths,
              {{0, 7, 9752, 812.412838, 306.062448, 0, 764.75, 973, 1020, 1022}});
}

// Three launches queue up before the first kernel starts, then drain.
TEST(HtaQueueLength, CountsOutstandingLaunchesPerStream) {
  const std::string trace = R"({"traceEvents": [
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":4,"dur":1,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":15,"dur":5,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7,"correlation":3}}
  ]})";
  testing::TempDir dir;
  const HtaBreakdown b = hta_breakdown_of({dir.write("queue.json", trace)});
  ASSERT_EQ(b.queue_lengths.size(), 1u);
  const Describe& d = b.queue_lengths[0].queue_length;
  EXPECT_EQ(d.count, 6u);  // 1 2 3 2 1 0
  EXPECT_DOUBLE_EQ(d.mean, 1.5);
  EXPECT_DOUBLE_EQ(d.max, 3);
}

}  // namespace
}  // namespace stallwatch::collector
