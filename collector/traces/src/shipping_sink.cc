// SPDX-License-Identifier: MIT
#include "traces/shipping_sink.h"

namespace stallwatch::collector {

ShippingSink::ShippingSink(BatchChannel& channel, std::size_t producer,
                           BatchBuilder::Options options)
    : channel_(channel), producer_(producer), builder_(names_, std::move(options)) {
  emit_ = [this](const DecodedBatch& batch) { ship(batch); };
}

void ShippingSink::begin_rank(const RankGroup&) {}

void ShippingSink::event(const RankGroup& group, const TraceFileInfo& file, const TraceEvent& event,
                         ClassMask) {
  builder_.add(group, file, event, emit_);
}

void ShippingSink::end_rank(const RankGroup& group) {
  builder_.finish_rank(group, emit_);
}

void ShippingSink::ship(const DecodedBatch& batch) {
  ShippedBatch* out = channel_.acquire();
  out->producer = producer_;
  out->first_new_name = shipped_names_;
  out->new_names.clear();
  const auto known = static_cast<NameId>(names_.size());
  for (NameId id = shipped_names_; id < known; ++id)
    out->new_names.emplace_back(names_.str(id));
  shipped_names_ = known;
  out->batch = batch;
  channel_.push(out);
}

}  // namespace stallwatch::collector
