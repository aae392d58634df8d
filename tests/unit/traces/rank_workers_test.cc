// SPDX-License-Identifier: MIT
#include "traces/rank_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace stallwatch::collector {
namespace {

TEST(RankWorkers, RunsEveryIndexOnceAndReportsEachWorkerDone) {
  std::vector<std::atomic<int>> runs(50);
  std::atomic<int> done{0};
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < runs.size(); ++i)
    order.push_back(runs.size() - 1 - i);
  RankWorkers pool(
      order, 4,
      [&](std::size_t index, std::size_t worker) {
        EXPECT_LT(worker, 4u);
        ++runs[index];
        return true;
      },
      [&](std::size_t) { ++done; });
  pool.join();
  for (const auto& r : runs)
    EXPECT_EQ(r.load(), 1);
  EXPECT_EQ(done.load(), 4);
  EXPECT_EQ(pool.error(), "");
}

TEST(RankWorkers, AFailingJobStopsTheRestAndAThrowIsReported) {
  std::atomic<int> started{0};
  std::vector<std::size_t> order(1000);
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  // One worker, so that what "the rest" is does not depend on scheduling.
  RankWorkers pool(order, 1, [&](std::size_t index, std::size_t) -> bool {
    ++started;
    if (index == 3) throw std::runtime_error("cannot read rank 3");
    return true;
  });
  pool.join();
  EXPECT_EQ(pool.error(), "cannot read rank 3");
  EXPECT_EQ(started.load(), 4);

  // Two workers: the other may finish any number of jobs meanwhile, but the
  // throw is still the reported error.
  RankWorkers pair(order, 2, [&](std::size_t index, std::size_t) -> bool {
    if (index == 3) throw std::runtime_error("cannot read rank 3");
    return true;
  });
  pair.join();
  EXPECT_EQ(pair.error(), "cannot read rank 3");

  std::atomic<int> after_false{0};
  RankWorkers stopping(order, 1, [&](std::size_t index, std::size_t) {
    ++after_false;
    return index < 5;
  });
  stopping.join();
  EXPECT_EQ(after_false.load(), 6);
}

TEST(RankWorkers, CountsTheCpusThisProcessMayUse) {
  EXPECT_GE(available_cpus(), 1u);
}

}  // namespace
}  // namespace stallwatch::collector
