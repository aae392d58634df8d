// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"

namespace stallwatch::collector {

// The result of BatchEncoder::encode: a frame, or why the batch cannot be sent.
struct EncodedFrame {
  std::span<const std::uint8_t> bytes;  // empty on error
  std::string error;                    // empty on success

  bool ok() const { return error.empty(); }
};

// BatchEncoder builds a wire frame (a FlatBuffers Batch, protocol version
// wire::kProtocolVersion) from a DecodedBatch whose event names are ids of a
// NameTable. The frame carries exactly the names its events use, as the wire
// contract requires. Used by trace replay (`stallwatch replay`), tests and
// benchmarks; agents have their own encoder.
//
// It checks the limits a receiver enforces on sizes and counts
// (kMaxEventsPerBatch, kMaxStringsPerBatch, kMaxStringBytes, kMaxFrameBytes)
// and reports a batch past them as an error instead of building a frame that
// would be rejected; callers split such batches. It does not check times or
// kinds: a batch with wild timestamps encodes and is rejected on receipt.
//
// Reuses its builder and per-batch name map between calls. Not thread-safe.
class BatchEncoder {
 public:
  BatchEncoder();
  ~BatchEncoder();
  BatchEncoder(const BatchEncoder&) = delete;
  BatchEncoder& operator=(const BatchEncoder&) = delete;

  // The returned bytes stay valid until the next encode() or destruction, and
  // start 8-byte aligned.
  EncodedFrame encode(const DecodedBatch& batch, const NameTable& names);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stallwatch::collector
