// SPDX-License-Identifier: MIT
#include "engine/event_class.h"

#include <gtest/gtest.h>

#include "class_cache.h"

namespace stallwatch::collector {
namespace {

constexpr ClassMask bit(EventClass c) {
  return class_bit(c);
}

TEST(GlobMatch, StarsAndQuestionMarks) {
  EXPECT_TRUE(glob_match("fetch", "fetch"));
  EXPECT_FALSE(glob_match("fetch", "fetch.iter"));
  EXPECT_TRUE(glob_match("fetch*", "fetch.iter"));
  EXPECT_TRUE(glob_match("*.iter", "loop.iter"));
  EXPECT_TRUE(glob_match("l??p.*", "loop.iter"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_FALSE(glob_match("?", ""));
  EXPECT_TRUE(glob_match("a*b*c", "axxbyyc"));
  EXPECT_FALSE(glob_match("a*b*c", "axxbyy"));
  EXPECT_TRUE(glob_match("*.iter", "a/b/.iter"));
  EXPECT_TRUE(glob_match("gpu[0-3]", "gpu2"));
  EXPECT_FALSE(glob_match("gpu[0-3]", "gpu7"));
  EXPECT_TRUE(glob_match("\\*", "*"));
  EXPECT_FALSE(glob_match("\\*", "x"));
}

TEST(EventClassNames, RoundTrip) {
  for (int i = 0; i < kEventClassCount; ++i) {
    const auto c = static_cast<EventClass>(i);
    EXPECT_EQ(event_class_from_string(to_string(c)), c);
  }
  EXPECT_EQ(to_string(EventClass::kDeviceBusy), "device_busy");
  EXPECT_FALSE(event_class_from_string("gpu").has_value());
}

TEST(ClassMapping, DesignDefaults) {
  const auto m = ClassMapping::defaults();
  const ClassMask fetch = bit(EventClass::kFetch) | bit(EventClass::kAppIo);
  EXPECT_EQ(m.classify("anything", "fetch.iter", false), fetch);
  EXPECT_EQ(m.classify("pipeline", "loop.iter", false), fetch);
  EXPECT_EQ(m.classify("dataloader", "fetch", true), fetch);
  EXPECT_EQ(m.classify("dataloader", "fetch", false), bit(EventClass::kAppIo));
  EXPECT_EQ(m.classify("gpu", "kernel", false), bit(EventClass::kDeviceBusy));
  // NCCL and RCCL kernels are communication (HTA's kernel types), whatever lane.
  for (const char* cat : {"gpu", "CUDA_KERNEL", "KERNEL_DISPATCH"}) {
    EXPECT_EQ(m.classify(cat, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", false),
              bit(EventClass::kComm))
        << cat;
    EXPECT_EQ(m.classify(cat, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage)", false),
              bit(EventClass::kComm))
        << cat;
  }
  EXPECT_EQ(m.classify("gpu", "nccl_pack", false), bit(EventClass::kDeviceBusy));
  EXPECT_EQ(m.classify("compute", "forward", false), bit(EventClass::kCompute));
  EXPECT_EQ(m.classify("ai_framework", "x", false), bit(EventClass::kCompute));
  for (const char* cat : {"dataloader", "data", "checkpoint", "reader"}) {
    EXPECT_EQ(m.classify(cat, "x", false), bit(EventClass::kAppIo)) << cat;
  }
  EXPECT_EQ(m.classify("POSIX", "read", false), bit(EventClass::kIo));
  EXPECT_EQ(m.classify("STDIO", "fread", false), bit(EventClass::kIo));
  EXPECT_EQ(m.classify("comm", "allreduce", false), bit(EventClass::kComm));
  EXPECT_EQ(m.classify("pipeline", "epoch", false), bit(EventClass::kPipeline));
  EXPECT_EQ(m.classify("posix", "read", false), 0);
  EXPECT_EQ(m.classify("", "", true), 0);
}

TEST(ClassMapping, LoopBodiesAreStructureNotIo) {
  // pydftracer's `ai.dataloader.fetch.iter()` body and dft_fn's `loop.yield`
  // span the whole step: classing them app I/O would hide every stall.
  const auto m = ClassMapping::defaults();
  EXPECT_EQ(m.classify("dataloader", "fetch.block", true), bit(EventClass::kPipeline));
  EXPECT_EQ(m.classify("data", "item.block", false), bit(EventClass::kPipeline));
  EXPECT_EQ(m.classify("dataloader", "loop.yield", true), bit(EventClass::kPipeline));
  EXPECT_EQ(m.classify("dataloader", "fetch.iter", true),
            bit(EventClass::kFetch) | bit(EventClass::kAppIo));
}

TEST(ClassMapping, PrependedRulesWinAndFetchImpliesAppIo) {
  auto m = ClassMapping::defaults();
  m.prepend({ClassRule{{"POSIX"}, {"read*"}, false, bit(EventClass::kFetch)},
             ClassRule{{"compute"}, {"noise"}, false, 0}});
  EXPECT_EQ(m.classify("POSIX", "readv", false), bit(EventClass::kFetch) | bit(EventClass::kAppIo));
  EXPECT_EQ(m.classify("POSIX", "write", false), bit(EventClass::kIo));
  EXPECT_EQ(m.classify("compute", "noise", false), 0);
  EXPECT_EQ(m.classify("compute", "forward", false), bit(EventClass::kCompute));
  EXPECT_EQ(m.rules().size(), ClassMapping::defaults().rules().size() + 2);
}

TEST(ClassCache, CachesPerNamePairAndMainThreadBit) {
  NameTable names;
  const auto mapping = ClassMapping::defaults();
  detail::ClassCache cache(mapping, names);
  const NameId dl = names.intern("dataloader");
  const NameId fetch = names.intern("fetch");
  const NameId posix = names.intern("POSIX");
  const NameId read = names.intern("read");
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(cache.classify(dl, fetch, true), bit(EventClass::kFetch) | bit(EventClass::kAppIo));
    EXPECT_EQ(cache.classify(dl, fetch, false), bit(EventClass::kAppIo));
    EXPECT_EQ(cache.classify(posix, read, false), bit(EventClass::kIo));
  }
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_GT(cache.bytes(), 0u);
}

}  // namespace
}  // namespace stallwatch::collector
