// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "name_table.h"
#include "record.h"
#include "stallwatch/source_info.h"
#include "time_base.h"

namespace stallwatch::agent {

// Turns Records into one wire Batch frame (schema/stallwatch.fbs).
//
// Use: reset(), add() records until it refuses one (the batch is full by
// event count or by frame size), prepare() with the time base to convert
// ticks, then finish() with the header fields; send the returned bytes, and
// reset() again. The FlatBufferBuilder and every table are reused, so a
// warm encoder does not allocate.
//
// Names: each batch carries its own string table. A generation-stamped array
// maps process-wide name ids to batch-local indices with one lookup per
// event; unknown ids and id 0 become the empty string.
//
// Owned and used by one thread at a time (the sender); reads NameTable
// lock-free.
class BatchEncoder {
 public:
  BatchEncoder(const NameTable& names, std::size_t max_events);
  ~BatchEncoder();
  BatchEncoder(const BatchEncoder&) = delete;
  BatchEncoder& operator=(const BatchEncoder&) = delete;

  void set_source(SourceInfo source);
  const SourceInfo& source() const noexcept { return source_; }
  // Changes only the declared device source (it may change at run time).
  void set_device_source(DeviceSource source) noexcept { source_.device_source = source; }

  void reset() noexcept;
  // False when the batch is full; the record is then not part of it.
  bool add(const Record& record) noexcept;
  std::size_t size() const noexcept { return staged_.size(); }
  bool empty() const noexcept { return staged_.empty(); }

  // Serialises the staged events (converting ticks with `time_base`), their
  // names and the source. Call once per batch, before finish().
  void prepare(const TimeBase& time_base);
  // Completes the frame; the bytes stay valid until the next reset().
  std::span<const std::uint8_t> finish(std::uint64_t seq, std::int64_t sent_at_ns,
                                       std::uint64_t dropped_since_last, bool final);

 private:
  struct Slot {
    std::uint32_t generation = 0;
    std::uint16_t index = 0;
  };
  struct Builder;

  // Batch-local index for process-wide `id`; -1 when the batch is full.
  int local_index(std::uint16_t id) noexcept {
    const Slot& slot = slots_[id];
    return slot.generation == generation_ ? slot.index : add_name(id);
  }
  // First use of `id` in this batch: adds its string to the batch.
  int add_name(std::uint16_t id) noexcept;

  const NameTable& names_;
  std::size_t max_events_;
  SourceInfo source_;
  std::size_t fixed_bytes_ = 0;
  std::size_t string_bytes_ = 0;
  std::uint32_t generation_ = 1;
  std::vector<Slot> slots_;
  std::vector<std::uint16_t> batch_names_;  // name ids, in batch-local index order
  std::vector<Record> staged_;              // cat/name already batch-local
  std::unique_ptr<Builder> builder_;
};

}  // namespace stallwatch::agent
