// SPDX-License-Identifier: MIT
// Kernel launches: launch calls joined to the device work they launched by
// correlation id, HTA's launch figures per window, and the launch-bound
// cause of a host-bound window.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "engine/metric_fields.h"
#include "stallwatch/device_lane.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

constexpr std::uint32_t kLauncher = 200;  // the host thread that launches
const std::uint32_t kStream = wire::device_lane(0, 7);

// One host thread launching kernels for 40 ms: each call takes `call_us` of
// every 40 us, its kernel starts `delay_us` after the call returned and runs
// `kernel_us`. `correlate`: the CUPTI source's launch records (off: only
// the kernels, as without launch records). Batches cover 1 ms each.
std::shared_ptr<const Snapshot> run_launch_loop(Harness& h, std::int64_t call_us,
                                                std::int64_t delay_us, std::int64_t kernel_us,
                                                bool correlate = true) {
  auto main = h.source(100);
  std::uint32_t correlation = 1;
  for (int chunk = 0; chunk < 40; ++chunk) {
    for (int i = 0; i < 25; ++i) {
      const std::int64_t call = kT0 + ms(chunk) + us(40 * i);
      const std::int64_t kernel = call + us(call_us + delay_us);
      if (correlate) {
        main.complete("cuda_runtime", "cudaLaunchKernel", call, us(call_us), kLauncher)
            .correlated(correlation);
      }
      main.complete("gpu", "tiny_kernel", kernel, us(kernel_us), kStream);
      if (correlate) main.correlated(correlation);
      ++correlation;
    }
    h.send(main.take(kT0 + ms(chunk + 1) + us(100)));
  }
  return h.tick(kT0 + ms(41));
}

TEST(EngineLaunches, ALaunchBoundLoopHasHtasFiguresAndIsLaunchBound) {
  Harness h(small_config());
  auto snap = run_launch_loop(h, 40, 5, 10);
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.launches, 250u);
  EXPECT_NEAR(w.launch_seconds, 250 * 40e-6, 1e-12);
  EXPECT_NEAR(w.launch_delay_seconds, 250 * 5e-6, 1e-12);
  EXPECT_EQ(w.short_kernels, 250u) << "10 us kernels behind 40 us calls";
  EXPECT_EQ(w.long_launches, 0u);
  EXPECT_EQ(w.late_launch_starts, 0u);
  EXPECT_NEAR(w.device_busy_seconds, 0.0025, 1e-12);
  EXPECT_EQ(w.verdict, Verdict::kHostBound);
  EXPECT_TRUE(w.launches_captured);
  EXPECT_NEAR(w.launch_idle_ratio, 0.010 / 0.0075, 1e-9);
  EXPECT_EQ(w.cause, Cause::kLaunchBound);
  EXPECT_EQ(to_string(w.cause), "launch-bound");
  const WindowMetrics& totals = window(*find_rank(*snap, "job", 0), 0);
  EXPECT_EQ(totals.launches, 999u) << "every pair that ended before the window's end (40 ms)";
}

TEST(EngineLaunches, WithoutLaunchRecordsAHostBoundCauseIsUnknownNeverAGuess) {
  Harness h(small_config());
  auto snap = run_launch_loop(h, 40, 5, 10, false);
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.verdict, Verdict::kHostBound);
  EXPECT_EQ(w.launches, 0u);
  EXPECT_FALSE(w.launches_captured);
  EXPECT_TRUE(std::isnan(w.launch_seconds));
  EXPECT_TRUE(std::isnan(w.launch_idle_ratio));
  EXPECT_EQ(w.cause, Cause::kUnknown);
}

TEST(EngineLaunches, HostWorkBetweenShortLaunchesIsNotLaunchBound) {
  Harness h(small_config());
  auto snap = run_launch_loop(h, 5, 5, 10);
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.verdict, Verdict::kHostBound);
  EXPECT_EQ(w.launches, 250u);
  EXPECT_EQ(w.short_kernels, 0u) << "a kernel longer than its call is not short";
  EXPECT_NEAR(w.launch_idle_ratio, 250 * 5e-6 / 0.0075, 1e-9);
  EXPECT_EQ(w.cause, Cause::kUnknown);
}

TEST(EngineLaunches, TheLaunchThresholdIsConfigurable) {
  EngineConfig c = small_config();
  c.verdict.launch_idle_ratio = 0.15;
  Harness h(c);
  auto snap = run_launch_loop(h, 5, 5, 10);
  EXPECT_EQ(window(*find_rank(*snap, "job", 0), ms(10)).cause, Cause::kLaunchBound);
}

TEST(EngineLaunches, PairsWithinOneProcessInEitherOrderWithHtasCutoffs) {
  Harness h(small_config());
  auto main = h.source(100);
  auto worker = h.source(101, ProcessRole::kWorker);
  // The kernel of correlation 7 arrives a batch before its call: a 60 us
  // call (long) whose kernel starts 150 us after it returned (late).
  main.complete("gpu", "k", kT0 + us(1210), us(30), kStream).correlated(7);
  h.send(main.take(kT0 + ms(2)));
  main.complete("cuda_runtime", "cudaLaunchKernel", kT0 + us(1000), us(60), kLauncher)
      .correlated(7);
  // The same id in another process is another launch: it never pairs.
  worker.complete("cuda_runtime", "cudaLaunchKernel", kT0 + us(1500), us(10), 300).correlated(7);
  // Device work without its call pairs with nothing.
  main.complete("gpu", "k", kT0 + us(2500), us(30), kStream).correlated(8);
  h.send(worker.take(kT0 + ms(3)));
  h.send(main.take(kT0 + ms(3)));
  for (int i = 4; i <= 12; ++i) {
    h.send(main.take(kT0 + ms(i)));
    h.send(worker.take(kT0 + ms(i)));
  }
  auto snap = h.tick(kT0 + ms(12));
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(30));
  EXPECT_EQ(w.launches, 1u);
  EXPECT_NEAR(w.launch_seconds, 60e-6, 1e-12);
  EXPECT_NEAR(w.launch_delay_seconds, 150e-6, 1e-12);
  EXPECT_EQ(w.long_launches, 1u);
  EXPECT_EQ(w.late_launch_starts, 1u);
  EXPECT_EQ(w.short_kernels, 0u);
}

TEST(EngineLaunches, ACallTypeIsNoClassOfItsOwn) {
  // Old collectors ignore launch calls because cat cuda_runtime is in no
  // class: they add no time to any metric, here as well.
  Harness h(small_config());
  auto main = h.source(100);
  for (int i = 0; i < 20; ++i)
    main.complete("cuda_runtime", "cudaLaunchKernel", kT0 + ms(i), ms(1), kLauncher);
  h.send(main.take(kT0 + ms(20)));
  auto snap = h.tick(kT0 + ms(20));
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.compute_seconds, 0);
  EXPECT_EQ(w.device_busy_seconds, 0);
  EXPECT_EQ(w.launches, 0u);
  EXPECT_EQ(w.verdict, Verdict::kIdle);
}

}  // namespace
}  // namespace stallwatch::collector::testing
