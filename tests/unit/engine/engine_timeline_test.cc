// SPDX-License-Identifier: MIT
// The timeline view: raw regions (every class), open regions and marks.

#include <gtest/gtest.h>

#include "stallwatch/protocol.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

TEST(EngineTimeline, RegionsOpenRegionsAndMarksWithNames) {
  Harness h(small_config());
  auto main = h.source(100);
  auto worker = h.source(300, ProcessRole::kWorker);
  main.complete("compute", "forward", kT0 + ms(4), ms(2))
      .complete("pipeline", "epoch", kT0 + ms(1), ms(8))
      .complete("misc", "other", kT0 + ms(2), ms(1))
      .mark("epoch.start", kT0 + ms(1), 3)
      .begin("loader", "fetch.iter", kT0 + ms(7), 1);
  worker.begin("POSIX", "read", kT0 + ms(3), 5, 301).end(kT0 + ms(6), 5, 301);
  h.send(main.take(kT0 + ms(9)));
  h.send(worker.take(kT0 + ms(8)));
  auto tl = h.engine.timeline("job", 0, 10);
  ASSERT_TRUE(tl.has_value());
  EXPECT_EQ(tl->to_ns, kT0 + ms(9));
  EXPECT_FALSE(tl->truncated);
  ASSERT_EQ(tl->regions.size(), 5u);
  EXPECT_EQ(tl->regions[0].name, "epoch");
  EXPECT_EQ(tl->regions[0].classes, class_bit(EventClass::kPipeline));
  EXPECT_EQ(tl->regions[1].name, "other");
  EXPECT_EQ(tl->regions[1].classes, 0);
  EXPECT_EQ(tl->regions[2].cat, "POSIX");
  EXPECT_EQ(tl->regions[2].pid, 300);
  EXPECT_EQ(tl->regions[2].tid, 301u);
  EXPECT_EQ(tl->regions[3].name, "forward");
  const TimelineRegion& open = tl->regions[4];
  EXPECT_TRUE(open.open);
  EXPECT_EQ(open.name, "fetch.iter");
  EXPECT_EQ(open.start_ns, kT0 + ms(7));
  EXPECT_EQ(open.end_ns, kT0 + ms(9));  // its source's watermark
  EXPECT_EQ(open.classes, class_bit(EventClass::kFetch) | class_bit(EventClass::kAppIo));
  ASSERT_EQ(tl->marks.size(), 1u);
  EXPECT_EQ(tl->marks[0].name, "epoch.start");
  EXPECT_EQ(tl->marks[0].value, 3);
  EXPECT_EQ(tl->marks[0].pid, 100);
}

// The wait that ended a loop keeps its END's mark through the timeline
// store (packed beside the class mask) to the view.
TEST(EngineTimeline, TheWaitThatEndedALoopIsMarked) {
  Harness h(small_config());
  auto main = h.source(100);
  main.begin("dataloader", "fetch.iter", kT0 + ms(1), 1)
      .end(kT0 + ms(2), 1)
      .begin("dataloader", "fetch.iter", kT0 + ms(4), 2)
      .end(kT0 + ms(6), 2, 0, wire::kEndLoopExhausted);
  h.send(main.take(kT0 + ms(9)));
  auto tl = h.engine.timeline("job", 0, 10);
  ASSERT_TRUE(tl.has_value());
  ASSERT_EQ(tl->regions.size(), 2u);
  EXPECT_FALSE(tl->regions[0].loop_end);
  EXPECT_TRUE(tl->regions[1].loop_end);
  EXPECT_EQ(tl->regions[1].classes, class_bit(EventClass::kFetch) | class_bit(EventClass::kAppIo));
  EXPECT_EQ(tl->regions[1].end_ns, kT0 + ms(6));
}

TEST(EngineTimeline, KeepsAtMostTheConfiguredRegionsAndSaysSo) {
  EngineConfig c = small_config();
  c.timeline_max_regions = 3;
  Harness h(c);
  auto main = h.source(100);
  for (int i = 0; i < 5; ++i)
    main.complete("compute", "f", kT0 + ms(i), ms(1));
  h.send(main.take(kT0 + ms(6)));
  auto tl = h.engine.timeline("job", 0, 1);
  ASSERT_TRUE(tl.has_value());
  EXPECT_EQ(tl->regions.size(), 3u);
  EXPECT_TRUE(tl->truncated);
  EXPECT_EQ(tl->regions.front().start_ns, kT0 + ms(2));
}

TEST(EngineTimeline, OnlyTheRequestedSecondsAndOnlyKnownRanks) {
  EngineConfig c = small_config();
  c.timeline_ns = sec(10);
  Harness h(c);
  auto main = h.source(100);
  main.complete("compute", "early", kT0, ms(10)).complete("compute", "late", kT0 + sec(3), ms(10));
  h.send(main.take(kT0 + sec(4)));
  auto tl = h.engine.timeline("job", 0, 2);
  ASSERT_TRUE(tl.has_value());
  EXPECT_EQ(tl->from_ns, kT0 + sec(2));
  ASSERT_EQ(tl->regions.size(), 1u);
  EXPECT_EQ(tl->regions[0].name, "late");
  EXPECT_EQ(h.engine.timeline("job", 0, 60)->regions.size(), 2u);
  EXPECT_FALSE(h.engine.timeline("job", 1, 2).has_value());
  EXPECT_FALSE(h.engine.timeline("other", 0, 2).has_value());
}

}  // namespace
}  // namespace stallwatch::collector::testing
