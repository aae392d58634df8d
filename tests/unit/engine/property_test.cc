// SPDX-License-Identifier: MIT
// Property tests of the engine's own paths (tests/support/engine): every
// scenario kind, half the deliveries applied as they are, half through a
// BatchPreparer first (trace replay's path), in the same run. The daemon's
// path through the wire is tests/unit/ingest/wire_property_test.cc.

#include <gtest/gtest.h>

#include "property_runner.h"

namespace stallwatch::collector::testing {
namespace {

class EnginePaths : public DeliveryPath {
 public:
  void start(Engine& engine, NameTable&) override {
    engine_ = &engine;
    preparer_ = std::make_unique<BatchPreparer>(engine.make_preparer(nullptr));
  }
  std::string deliver(const DecodedBatch& b, std::size_t index, std::uint32_t seed) override {
    if ((seed + index) % 2 == 0) {
      engine_->ingest(b, b.sent_at_ns);
      return "as they are";
    }
    preparer_->prepare(b, prepared_);
    engine_->ingest(b, b.sent_at_ns, &prepared_);
    return "prepared";
  }

 private:
  Engine* engine_ = nullptr;
  std::unique_ptr<BatchPreparer> preparer_;
  PreparedBatch prepared_;
};

class EngineProperty : public ::testing::TestWithParam<PropertyKind> {};

TEST_P(EngineProperty, EveryWindowEqualsTheOracle) {
  EnginePaths path;
  PropertyTotals totals = run_property_cases(GetParam(), path);
  // Both paths were taken about equally.
  EXPECT_GT(totals.paths["prepared"] * 3, totals.deliveries);
  EXPECT_GT(totals.paths["as they are"] * 3, totals.deliveries);
}

INSTANTIATE_TEST_SUITE_P(Kinds, EngineProperty, ::testing::ValuesIn(property_kinds()),
                         [](const auto& param) { return property_kind_id(param.param); });

}  // namespace
}  // namespace stallwatch::collector::testing
