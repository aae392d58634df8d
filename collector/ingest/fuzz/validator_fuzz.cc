// libFuzzer target: any byte sequence through BatchDecoder (FrameValidator,
// then decoding and name interning). Sanitizers catch memory errors; on top,
// the target aborts unless
//   - the decoder (which checks the per-event rules while it copies) and
//     FrameValidator::validate agree on every input: both accept it, or both
//     reject it for the same reason with the same words;
//   - every accepted frame survives a round trip: re-encoded by BatchEncoder
//     and decoded again, it gives the same batch.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "ingest/frame_validator.h"
#include "ingest/name_table.h"

namespace {

using stallwatch::collector::BatchDecoder;
using stallwatch::collector::BatchEncoder;
using stallwatch::collector::DecodedBatch;
using stallwatch::collector::FrameValidator;
using stallwatch::collector::NameTable;

struct FuzzState {
  NameTable names{1u << 16, 16u << 20};  // bounded: the fuzzer runs millions of inputs
  BatchDecoder decoder{names};
  BatchEncoder encoder;
  DecodedBatch batch;
  DecodedBatch again;
  std::vector<std::uint64_t> aligned;  // the validator wants an 8-byte aligned frame
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static FuzzState state;
  const auto decoded = state.decoder.decode({data, size}, state.batch);
  state.aligned.assign((size + 7) / 8, 0);
  if (size > 0) std::memcpy(state.aligned.data(), data, size);
  const auto validated =
      FrameValidator::validate({reinterpret_cast<const std::uint8_t*>(state.aligned.data()), size});
  if (decoded.has_value() != validated.has_value()) std::abort();
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
