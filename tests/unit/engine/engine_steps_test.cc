// SPDX-License-Identifier: MIT
// Steps: marks, the FETCH-end fallback, step-time percentiles and samples.

#include <gtest/gtest.h>

#include <cmath>

#include "stallwatch/protocol.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

TEST(EngineSteps, StepMarksGiveCountsRatesAndPercentiles) {
  Harness h(small_config());
  auto main = h.source(100);
  main.mark("epoch.start", kT0 + ms(1), 2);
  std::int64_t value = 1;
  for (std::int64_t at : {0, 3, 7, 12, 20})
    main.mark("step", kT0 + ms(at), value++);
  h.send(main.take(kT0 + ms(25)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(25)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->step, 5);
  EXPECT_EQ(r->epoch, 2);
  const WindowMetrics& total = window(*r, 0);
  EXPECT_EQ(total.steps, 5u);
  EXPECT_DOUBLE_EQ(total.steps_per_second, 200.0);
  EXPECT_NEAR(total.step_seconds_p50, 0.0045, 1e-12);
  EXPECT_NEAR(total.step_seconds_p95, 0.00755, 1e-12);
  EXPECT_TRUE(std::isnan(total.samples_per_second));
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_EQ(w.steps, 1u);
  EXPECT_NEAR(w.step_seconds_p50, 0.008, 1e-12);
}

TEST(EngineSteps, FetchEndsOnTheMainThreadCountUntilTheFirstStepMark) {
  Harness h(small_config());
  auto main = h.source(100);
  for (std::int64_t end : {5, 10, 15, 22})
    main.complete("loader", "fetch.iter", kT0 + ms(end - 2), ms(2));
  main.complete("loader", "fetch.iter", kT0 + ms(6), ms(2), 4242);  // not the main thread
  main.mark("step", kT0 + ms(18), 1).mark("step", kT0 + ms(24), 2);
  h.send(main.take(kT0 + ms(25)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(25)), "job", 0);
  ASSERT_NE(r, nullptr);
  const WindowMetrics& total = window(*r, 0);
  // Fetch ends 5, 10, 15 and mark 24: the mark at 18 ends the step whose
  // batch the fetch ending at 15 brought.
  EXPECT_EQ(total.steps, 4u);
  EXPECT_NEAR(total.step_seconds_p50, 0.005, 1e-12);  // 5, 5, then 6 from the mark at 18
}

// The `ai` API with no epoch marker: per batch a fetch.iter wait, then the
// body (a fetch.block region) that ends with a step mark from
// ai.update(step=...); the iterator's last wait ends the loop. Batches are
// sent mid-step, so the first fetch is finalized before the first step mark
// arrives.
TEST(EngineSteps, AnAiLoopWithoutEpochMarkersCountsOneStepPerBatchTrained) {
  constexpr int kBatches = 10;
  Harness h(small_config());
  auto main = h.source(100);
  const std::int64_t t0 = kT0 + ms(1);
  std::uint32_t region = 1;
  for (int b = 0; b <= kBatches; ++b) {
    const std::int64_t at = t0 + ms(8 * b);
    const std::uint32_t fetch = region++;
    main.begin("dataloader", "fetch.iter", at, fetch);
    if (b == kBatches) {
      main.end(at + ms(1), fetch, 0, wire::kEndLoopExhausted);
      h.send(main.take(at + ms(1)));
      break;
    }
    main.end(at + ms(1), fetch);
    const std::uint32_t body = region++;
    main.begin("dataloader", "fetch.block", at + ms(1), body)
        .complete("compute", "forward", at + ms(1), ms(6));
    h.send(main.take(at + ms(7)));
    h.tick(at + ms(7));
    main.mark("step", at + ms(7), b).end(at + ms(7) + us(10), body);
  }
  const RankSnapshot* r = find_rank(*h.tick(t0 + ms(8 * kBatches + 1)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->step, kBatches - 1);
  const WindowMetrics& total = window(*r, 0);
  EXPECT_EQ(total.steps, static_cast<std::uint64_t>(kBatches));
  EXPECT_NEAR(total.step_seconds_p50, 0.008, 1e-12);
  EXPECT_NEAR(total.step_seconds_p95, 0.008, 1e-12);
  // Step marks at 8, 16, ..., 80 ms; windows end at 82 ms.
  EXPECT_EQ(window(*r, ms(30)).steps, 4u);
  EXPECT_EQ(window(*r, ms(10)).steps, 2u);
}

// A loop that marks its epochs (an epoch-start mark, or the `epoch.block`
// region of `ai.pipeline.epoch.iter`) but not its steps: epoch marks do not
// end the fallback, so each fetch that brought a batch is a step; the wait
// that ended each epoch's loop and the call that returned a generator (END
// marked kEndNoItem) are not.
TEST(EngineSteps, ALoopThatMarksItsEpochsButNotItsStepsCountsItsFetches) {
  constexpr int kEpochs = 3, kBatches = 6;
  for (const bool epoch_marks : {true, false}) {
    SCOPED_TRACE(epoch_marks ? "epoch-start marks" : "epoch.block regions");
    Harness h(small_config());
    auto main = h.source(100);
    std::int64_t at = kT0 + ms(1);
    std::uint32_t region = 1;
    for (int e = 0; e < kEpochs; ++e) {
      const std::uint32_t epoch = region++;
      if (epoch_marks) {
        main.mark("epoch.start", at, e);
      } else {
        main.begin("pipeline", "epoch.block", at, epoch);
      }
      const std::uint32_t call = region++;
      main.begin("dataloader", "fetch", at, call);
      main.end(at + us(20), call, 0, wire::kEndNoItem);
      at += ms(1);
      for (int b = 0; b <= kBatches; ++b) {
        const std::uint32_t fetch = region++;
        main.begin("dataloader", "fetch.iter", at, fetch);
        at += ms(1);
        main.end(at, fetch, 0, b == kBatches ? wire::kEndLoopExhausted : 0);
        main.complete("compute", "forward", at, ms(2));
        at += ms(2);
      }
      if (epoch_marks) {
        main.mark("epoch.end", at, e);
      } else {
        main.end(at, epoch);
      }
      h.send(main.take(at));
    }
    const RankSnapshot* r = find_rank(*h.tick(at + ms(1)), "job", 0);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(window(*r, 0).steps, static_cast<std::uint64_t>(kEpochs * kBatches));
    EXPECT_NEAR(window(*r, 0).step_seconds_p50, 0.003, 1e-12);
  }
}

// The zero-code loop: an epoch-start mark, then per batch a fetch wait and a
// step mark after it (from optimizer.step()); the iterator's last wait ends
// the epoch and is marked as the loop's end. Steps are the batches trained,
// over several epochs and in every window.
TEST(EngineSteps, AMarkedLoopCountsOneStepPerBatchTrained) {
  constexpr int kEpochs = 3, kBatches = 10;
  Harness h(small_config());
  auto main = h.source(100);
  std::int64_t at = kT0 + ms(1);
  std::uint32_t region = 1;
  std::int64_t step = 0;
  for (int e = 0; e < kEpochs; ++e) {
    main.mark("epoch.start", at, e);
    for (int b = 0; b <= kBatches; ++b) {
      main.begin("dataloader", "fetch.iter", at, region);
      at += ms(1);
      if (b == kBatches) {
        main.end(at, region++, 0, wire::kEndLoopExhausted);
        break;
      }
      main.end(at, region++);
      at += ms(2);
      main.mark("step", at, ++step);
      at += ms(1);
    }
    main.mark("epoch.end", at, e);
    h.send(main.take(at));
  }
  const RankSnapshot* r = find_rank(*h.tick(at + ms(1)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->step, kEpochs * kBatches);
  EXPECT_EQ(window(*r, 0).steps, static_cast<std::uint64_t>(kEpochs * kBatches));
  // The last epoch's step marks are at 86, 90, ..., 122 ms; windows end at 124 ms.
  EXPECT_EQ(window(*r, ms(30)).steps, 8u);
  EXPECT_EQ(window(*r, ms(10)).steps, 3u);
}

// A rank without marks: each fetch that brought a batch is a step, the wait
// that ended each epoch's loop is not.
TEST(EngineSteps, FetchEndsCountOneStepPerBatchWithoutTheLoopEndingWait) {
  constexpr int kEpochs = 2, kBatches = 7;
  Harness h(small_config());
  auto main = h.source(100);
  std::int64_t at = kT0 + ms(1);
  std::uint32_t region = 1;
  for (int e = 0; e < kEpochs; ++e) {
    for (int b = 0; b <= kBatches; ++b) {
      main.begin("dataloader", "fetch.iter", at, region);
      at += ms(1);
      main.end(at, region++, 0, b == kBatches ? wire::kEndLoopExhausted : 0);
      at += ms(3);
    }
    h.send(main.take(at));
  }
  const RankSnapshot* r = find_rank(*h.tick(at + ms(1)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(window(*r, 0).steps, static_cast<std::uint64_t>(kEpochs * kBatches));
}

TEST(EngineSteps, SamplesUseTheBatchSizeInForceAtEachStep) {
  Harness h(small_config());
  auto main = h.source(100);
  main.counter("batch_size", kT0, 32)
      .mark("step", kT0 + ms(5), 1)
      .mark("step", kT0 + ms(10), 2)
      .counter("batch_size", kT0 + ms(12), 16)
      .mark("step", kT0 + ms(15), 3);
  h.send(main.take(kT0 + ms(20)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(20)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(window(*r, 0).samples_per_second, 80 / 0.020);
  EXPECT_DOUBLE_EQ(window(*r, ms(10)).samples_per_second, 48 / 0.010);  // steps at 10 and 15 ms
}

TEST(EngineSteps, PercentilesUseAtMostMaxStepsKept) {
  EngineConfig c = small_config();
  c.max_steps_kept = 4;
  Harness h(c);
  auto main = h.source(100);
  std::int64_t at = 0;
  for (int d = 0; d < 10; ++d) {
    at += d;
    main.mark("step", kT0 + ms(at), d);
  }
  h.send(main.take(kT0 + ms(46)));
  h.send(main.take(kT0 + ms(100)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(100)), "job", 0);
  ASSERT_NE(r, nullptr);
  const WindowMetrics& total = window(*r, 0);
  EXPECT_EQ(total.steps, 10u);
  EXPECT_NEAR(total.step_seconds_p50, 0.0075, 1e-12);  // durations 6, 7, 8, 9 ms
}

}  // namespace
}  // namespace stallwatch::collector::testing
