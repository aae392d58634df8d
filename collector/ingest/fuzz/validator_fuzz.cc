// libFuzzer target: any byte sequence through BatchDecoder (FrameValidator,
// then decoding and name interning). Sanitizers catch memory errors; on top,
// every accepted frame must survive a round trip: re-encoded by BatchEncoder
// and decoded again, it must give the same batch, or the target aborts.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "ingest/name_table.h"

namespace {

using stallwatch::collector::BatchDecoder;
using stallwatch::collector::BatchEncoder;
using stallwatch::collector::DecodedBatch;
using stallwatch::collector::NameTable;

struct FuzzState {
  NameTable names{1u << 16, 16u << 20};  // bounded: the fuzzer runs millions of inputs
  BatchDecoder decoder{names};
  BatchEncoder encoder;
  DecodedBatch batch;
  DecodedBatch again;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static FuzzState state;
  if (state.decoder.decode({data, size}, state.batch)) return 0;

  const auto frame = state.encoder.encode(state.batch, state.names);
  if (!frame.ok()) std::abort();
  if (state.decoder.decode(frame.bytes, state.again)) std::abort();
  state.again.protocol_version =
      state.batch.protocol_version;  // any accepted minor re-encodes as ours
  if (!(state.again == state.batch)) std::abort();
  return 0;
}
