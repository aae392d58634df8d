// SPDX-License-Identifier: MIT
#include "pending_coverage.h"

#include <gtest/gtest.h>

namespace stallwatch::collector::detail {
namespace {

constexpr std::int64_t kRes = 10;
constexpr ClassMask kComputeBit = class_bit(EventClass::kCompute);
constexpr ClassMask kIoBit = class_bit(EventClass::kIo);

void merge(PendingCoverage& p, std::int64_t a, std::int64_t b, ClassMask mask) {
  BatchCoverage batch;
  batch.add(a, b, mask);
  p.merge(batch);
  EXPECT_TRUE(batch.empty());
}

TEST(PendingCoverage, ABatchAfterEverythingKnownCountsEachCell) {
  PendingCoverage p(kRes);
  BatchCoverage batch;
  batch.add(5, 25, kComputeBit);
  batch.add(15, 20, kIoBit);
  p.merge(batch);
  EXPECT_EQ(p.fold_cell(0).ns[kCompute], 5u);
  EXPECT_EQ(p.fold_cell(1).ns[kCompute], 10u);
  EXPECT_EQ(p.fold_cell(1).ns[kIo], 5u);
  EXPECT_EQ(p.fold_cell(1).ns[kUnoverlappedIo], 0u);
  EXPECT_EQ(p.fold_cell(2).ns[kCompute], 5u);
  EXPECT_EQ(p.fold_cell(7).ns[kCompute], 0u);
  EXPECT_EQ(p.cell(7), nullptr);
  EXPECT_EQ(p.map().mask_at(17), kComputeBit | kIoBit);
}

TEST(PendingCoverage, AnEarlierBatchAddsOnlyWhatIsNew) {
  PendingCoverage p(kRes);
  merge(p, 20, 30, kComputeBit);
  merge(p, 15, 25, kIoBit);
  merge(p, 20, 30, kComputeBit);  // nothing new
  EXPECT_EQ(p.fold_cell(1).ns[kIo], 5u);
  EXPECT_EQ(p.fold_cell(1).ns[kUnoverlappedIo], 5u);
  EXPECT_EQ(p.fold_cell(2).ns[kCompute], 10u);
  EXPECT_EQ(p.fold_cell(2).ns[kIo], 5u);
  EXPECT_EQ(p.fold_cell(2).ns[kUnoverlappedIo], 0u);
  EXPECT_EQ(p.map().mask_at(22), kComputeBit | kIoBit);
}

TEST(PendingCoverage, TimeBeforeTheBulkBoundGoesToTheBulkOnly) {
  PendingCoverage p(kRes);
  p.set_bulk_before(20);
  merge(p, 5, 35, kComputeBit);
  EXPECT_EQ(p.cell(0), nullptr);
  EXPECT_EQ(p.cell(1), nullptr);
  EXPECT_EQ(p.fold_cell(2).ns[kCompute], 10u);
  EXPECT_EQ(p.fold_cell(3).ns[kCompute], 5u);
  EXPECT_EQ(p.fold_bulk(0, 2).ns[kCompute], 15);
  EXPECT_EQ(p.fold_bulk(0, 3).ns[kCompute], 25);  // the bulk and cell 2
  EXPECT_EQ(p.fold_bulk(0, 9).ns[kCompute], 30);  // up to the first missing cell
}

TEST(PendingCoverage, ChangesFromOutsideTheMapSplitAtTheirOwnBound) {
  PendingCoverage p(kRes);
  merge(p, 0, 30, kIoBit);
  p.count_change(5, 25, kIoBit, kIoBit | kComputeBit, 10);
  EXPECT_EQ(p.fold_bulk(0, 0).ns[kCompute], 5);
  EXPECT_EQ(p.fold_bulk(0, 0).ns[kIo], 0);  // it moved between bins: the total is the same
  EXPECT_EQ(p.fold_cell(1).ns[kCompute], 10u);
  EXPECT_EQ(p.fold_cell(1).ns[kUnoverlappedIo], 0u);
  EXPECT_EQ(p.fold_cell(2).ns[kCompute], 5u);
  EXPECT_EQ(p.fold_cell(2).ns[kUnoverlappedIo], 5u);
  EXPECT_EQ(p.map().mask_at(15), kIoBit);  // the map keeps closed regions only
}

TEST(PendingCoverage, TrimForgetsCellsBeforeTheHorizonAndTheBulk) {
  PendingCoverage p(kRes);
  p.set_bulk_before(10);
  merge(p, 0, 40, kComputeBit);
  EXPECT_EQ(p.fold_bulk(0, 0).ns[kCompute], 10);
  p.trim_before(25);
  EXPECT_EQ(p.cell(1), nullptr);
  ASSERT_NE(p.cell(2), nullptr);
  EXPECT_EQ(p.fold_cell(3).ns[kCompute], 10u);
  EXPECT_EQ(p.fold_bulk(0, 0).ns[kCompute], 0);
  EXPECT_EQ(p.map().mask_at(30), kComputeBit);
  EXPECT_GT(p.bytes(), 0u);
}

}  // namespace
}  // namespace stallwatch::collector::detail
