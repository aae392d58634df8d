// SPDX-License-Identifier: MIT
// Property tests of stallwatchd's path (tests/support/engine): every scenario
// kind, two thirds of the deliveries encoded as frames and taken through
// BatchDecoder::decode_prepared (decoded and prepared in one pass, the batch
// kept compact when it can be), the rest applied as they are, in the same
// run; every window must equal the oracle's.

#include <gtest/gtest.h>

#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "property_runner.h"

namespace stallwatch::collector::testing {
namespace {

class WirePath : public DeliveryPath {
 public:
  void start(Engine& engine, NameTable& names) override {
    engine_ = &engine;
    names_ = &names;
    preparer_ = std::make_unique<BatchPreparer>(engine.make_preparer(nullptr));
    decoder_ = std::make_unique<BatchDecoder>(names);
  }
  std::string deliver(const DecodedBatch& b, std::size_t index, std::uint32_t seed) override {
    if ((seed + index) % 3 != 0) {
      // False, with nothing ingested, when the wire does not accept the
      // batch (the scenarios allow times the protocol does not).
      const EncodedFrame frame = encoder_.encode(b, *names_);
      if (frame.ok() && !decoder_->decode_prepared(frame.bytes, *preparer_, batch_, prepared_)) {
        engine_->ingest(batch_, b.sent_at_ns, &prepared_);
        return prepared_.compact() ? "through the wire, compact" : "through the wire, whole";
      }
    }
    engine_->ingest(b, b.sent_at_ns);
    return "as they are";
  }

 private:
  Engine* engine_ = nullptr;
  NameTable* names_ = nullptr;
  std::unique_ptr<BatchPreparer> preparer_;
  std::unique_ptr<BatchDecoder> decoder_;
  BatchEncoder encoder_;
  DecodedBatch batch_;
  PreparedBatch prepared_;
};

class WireProperty : public ::testing::TestWithParam<PropertyKind> {};

TEST_P(WireProperty, EveryWindowEqualsTheOracle) {
  WirePath path;
  // Half the engine's case count: the engine's own paths are covered there.
  PropertyTotals totals = run_property_cases(GetParam(), path, 0.5);
  const std::size_t wire =
      totals.paths["through the wire, compact"] + totals.paths["through the wire, whole"];
  // Most of the two thirds took the daemon's path, most of them kept compact.
  EXPECT_GT(wire * 5, totals.deliveries * 2);
  EXPECT_GT(totals.paths["through the wire, compact"] * 2, wire);
}

INSTANTIATE_TEST_SUITE_P(Kinds, WireProperty, ::testing::ValuesIn(property_kinds()),
                         [](const auto& param) { return property_kind_id(param.param); });

}  // namespace
}  // namespace stallwatch::collector::testing
