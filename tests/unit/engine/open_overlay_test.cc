// SPDX-License-Identifier: MIT
#include "open_overlay.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

constexpr ClassMask kComputeBit = class_bit(EventClass::kCompute);
constexpr ClassMask kIoBit = class_bit(EventClass::kIo);
constexpr ClassMask kPipelineBit = class_bit(EventClass::kPipeline);

OpenRegion open(std::uint32_t id, std::int64_t begin_eff, ClassMask mask) {
  OpenRegion r;
  r.key = region_key(1, id);
  r.begin_ns = begin_eff;
  r.begin_eff_ns = begin_eff;
  r.mask = mask;
  return r;
}

SourceTracker source(std::int64_t watermark, std::vector<OpenRegion> regions) {
  SourceTracker s;
  s.watermark_ns = watermark;
  for (const auto& r : regions)
    s.open.add(r);
  return s;
}

using Piece = std::tuple<std::int64_t, std::int64_t, ClassMask>;

std::vector<Piece> pieces(OpenOverlay& o, const std::vector<SourceTracker>& sources,
                          std::int64_t from, std::int64_t to) {
  std::vector<Piece> out;
  for (const auto& p : o.pieces(sources, from, to))
    out.emplace_back(p.start, p.end, p.mask);
  return out;
}

TEST(OpenOverlay, AnOpenRegionCoversUpToItsOwnSourcesWatermark) {
  OpenOverlay o;
  std::vector<SourceTracker> sources;
  sources.push_back(source(50, {open(1, 10, kComputeBit)}));
  sources.push_back(source(80, {open(1, 20, kIoBit)}));
  EXPECT_EQ(pieces(o, sources, 0, 100),
            (std::vector<Piece>{
                {10, 20, kComputeBit}, {20, 50, kComputeBit | kIoBit}, {50, 80, kIoBit}}));
  // Clipped to [from, to).
  EXPECT_EQ(pieces(o, sources, 30, 60),
            (std::vector<Piece>{{30, 50, kComputeBit | kIoBit}, {50, 60, kIoBit}}));
  EXPECT_TRUE(pieces(o, sources, 60, 60).empty());
}

TEST(OpenOverlay, OrphanEndsAndRegionsWithoutMetricClassesCoverNothing) {
  OpenOverlay o;
  OpenRegion orphan = open(2, 0, kComputeBit);
  orphan.orphan_end = true;
  std::vector<SourceTracker> sources;
  sources.push_back(source(100, {orphan, open(3, 0, kPipelineBit), open(4, 100, kIoBit)}));
  EXPECT_TRUE(pieces(o, sources, 0, 200).empty());  // the last one begins at the watermark
  sources.push_back(source(100, {open(1, 40, kComputeBit | kPipelineBit)}));
  EXPECT_EQ(pieces(o, sources, 0, 200), (std::vector<Piece>{{40, 100, kComputeBit}}));
}

TEST(OpenOverlay, ReportsOnlyThePiecesOfTheMapItChanges) {
  CoverageMap map;
  const auto ignore = [](std::int64_t, std::int64_t, ClassMask, ClassMask) {};
  map.add(0, 30, kComputeBit, ignore);
  map.add(30, 40, kIoBit, ignore);
  OpenOverlay o;
  std::vector<SourceTracker> sources;
  sources.push_back(source(60, {open(1, 10, kComputeBit)}));
  std::vector<std::tuple<std::int64_t, std::int64_t, ClassMask, ClassMask>> changes;
  o.for_each_change(map, sources, 0, 100,
                    [&](std::int64_t s, std::int64_t e, ClassMask was, ClassMask now) {
                      changes.emplace_back(s, e, was, now);
                    });
  // [10, 30) is compute already; [30, 40) gains compute; [40, 60) had nothing.
  EXPECT_EQ(changes, (std::vector<std::tuple<std::int64_t, std::int64_t, ClassMask, ClassMask>>{
                         {30, 40, kIoBit, kIoBit | kComputeBit}, {40, 60, 0, kComputeBit}}));
  EXPECT_GT(o.bytes(), 0u);
}

}  // namespace
}  // namespace stallwatch::collector::detail
