// SPDX-License-Identifier: MIT
// libFuzzer target: any byte sequence through BatchDecoder (FrameValidator,
// then decoding and name interning). Sanitizers catch memory errors; on top,
// the target aborts unless
//   - the decoder (which checks the per-event rules while it copies) and
//     FrameValidator::validate agree on every input: both accept it, or both
//     reject it for the same reason with the same words;
//   - every accepted frame survives a round trip: re-encoded by BatchEncoder
//     and decoded again, it gives the same batch;
//   - stallwatchd's path (BatchDecoder::decode_prepared: validating,
//     decoding and preparing the events in one pass) accepts and rejects
//     exactly the same frames with the same words, and for an
//     accepted frame keeps exactly the events BatchPreparer::prepare lists
//     for the whole batch (all of them when the regions are not ready).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "engine/batch_preparer.h"
#include "engine/event_class.h"
#include "engine/name_table.h"
#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "ingest/frame_validator.h"

namespace {

using stallwatch::collector::BatchDecoder;
using stallwatch::collector::BatchEncoder;
using stallwatch::collector::DecodedBatch;
using stallwatch::collector::FrameValidator;
using stallwatch::collector::NameTable;

using stallwatch::collector::BatchPreparer;
using stallwatch::collector::ClassMapping;
using stallwatch::collector::PreparedBatch;

struct FuzzState {
  NameTable names{1u << 16, 16u << 20};  // bounded: the fuzzer runs millions of inputs
  BatchDecoder decoder{names};
  BatchEncoder encoder;
  DecodedBatch batch;
  DecodedBatch again;
  std::vector<std::uint64_t> aligned;  // the validator wants an 8-byte aligned frame
  // The daemon's path, with its own decoder (the same names).
  ClassMapping mapping = ClassMapping::defaults();
  BatchDecoder wire_decoder{names};
  BatchPreparer preparer{mapping, names, nullptr};
  DecodedBatch wire_batch;
  PreparedBatch wire_prepared;
  PreparedBatch prepared;
};

// stallwatchd's receive path agrees with decode() on `data`.
void check_wire_path(FuzzState& state, const std::uint8_t* data, std::size_t size,
                     const std::optional<stallwatch::collector::FrameError>& decoded) {
  const auto error = state.wire_decoder.decode_prepared({data, size}, state.preparer,
                                                        state.wire_batch, state.wire_prepared);
  if (error.has_value() != decoded.has_value()) std::abort();
  if (error) {
    if (error->reason != decoded->reason || error->detail != decoded->detail) std::abort();
    return;
  }
  const PreparedBatch& w = state.wire_prepared;
  if (w.event_count() != state.batch.events.size()) std::abort();
  if (!w.matches(state.wire_batch.events.size())) std::abort();
  state.preparer.prepare(state.batch, state.prepared);
  if (w.regions_ready() != state.prepared.regions_ready() || w.compact() != w.regions_ready())
    std::abort();
  if (!w.compact()) {
    if (!(state.wire_batch.events == state.batch.events)) std::abort();
    return;
  }
  const auto& special = state.prepared.special();
  if (state.wire_batch.events.size() != special.size()) std::abort();
  for (std::size_t k = 0; k < special.size(); ++k) {
    if (!(state.wire_batch.events[k] == state.batch.events[special[k]])) std::abort();
    if (w.masks()[k] != state.prepared.masks()[special[k]]) std::abort();
  }
  if (w.min_complete_ts() != state.prepared.min_complete_ts()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static FuzzState state;
  const auto decoded = state.decoder.decode({data, size}, state.batch);
  state.aligned.assign((size + 7) / 8, 0);
  if (size > 0) std::memcpy(state.aligned.data(), data, size);
  const auto validated =
      FrameValidator::validate({reinterpret_cast<const std::uint8_t*>(state.aligned.data()), size});
  if (decoded.has_value() != validated.has_value()) std::abort();
  check_wire_path(state, data, size, decoded);
  if (decoded) {
    if (decoded->reason != validated->reason || decoded->detail != validated->detail) std::abort();
    return 0;
  }

  const auto frame = state.encoder.encode(state.batch, state.names);
  if (!frame.ok()) std::abort();
  if (state.decoder.decode(frame.bytes, state.again)) std::abort();
  state.again.protocol_version =
      state.batch.protocol_version;  // any accepted minor re-encodes as ours
  if (!(state.again == state.batch)) std::abort();
  return 0;
}
