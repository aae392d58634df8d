// SPDX-License-Identifier: MIT
#include "engine_view.h"

#include <algorithm>

namespace stallwatch::collector {

namespace {

EngineConfig offline_config(const ClassMapping& classes, std::int64_t lateness_ns) {
  EngineConfig config;
  config.classes = classes;
  config.verdict_window_ns = 0;  // the whole run
  config.lateness_ns = std::max<std::int64_t>(lateness_ns, config.resolution_ns);
  // The whole run's top files exact for every file a trace names.
  config.top_files_total_files = 1'000'000;
  // A recorded run is never silent or forgotten while it is being read.
  config.silent_after_ns = std::numeric_limits<std::int64_t>::max() / 4;
  config.forget_after_ns = std::numeric_limits<std::int64_t>::max() / 4;
  std::int64_t longest = 0;
  for (std::int64_t w : config.windows_ns)
    longest = std::max(longest, w);
  config.history_ns =
      std::max(config.history_ns, longest + config.lateness_ns + config.resolution_ns);
  return config;
}

}  // namespace

BatchBuilder::Options EngineView::batch_options() {
  BatchBuilder::Options options;
  options.job = "dftracer";
  options.kineto_job = "kineto";
  return options;
}

EngineView::EngineView(const ClassMapping& classes, std::int64_t lateness_ns)
    : config_(offline_config(classes, lateness_ns)), builder_(names_, batch_options()) {
  error_ = validate(config_);
  if (error_.empty()) {
    engine_ = std::make_unique<Engine>(config_, names_);
    preparer_ = std::make_unique<BatchPreparer>(engine_->make_preparer(nullptr));
  }
  emit_ = [this](const DecodedBatch& batch) { ingest(batch); };
}

EngineView::~EngineView() = default;

void EngineView::ingest(const DecodedBatch& batch) {
  latest_ns_ = std::max(latest_ns_, batch.sent_at_ns);
  if (!engine_) return;
  preparer_->prepare(batch, prepared_);
  engine_->ingest(batch, batch.sent_at_ns, &prepared_);
}

void EngineView::ingest_shipped(ShippedBatch& shipped) {
  if (shipped.producer >= shipped_ids_.size()) shipped_ids_.resize(shipped.producer + 1);
  std::vector<NameId>& ids = shipped_ids_[shipped.producer];
  ids.resize(shipped.first_new_name, NameTable::kOverflow);
  for (const std::string& name : shipped.new_names)
    ids.push_back(names_.intern(name));
  const auto map = [&](NameId id) { return id < ids.size() ? ids[id] : NameTable::kOverflow; };
  for (Event& e : shipped.batch.events) {
    e.cat = map(e.cat);
    e.name = map(e.name);
  }
  ingest(shipped.batch);
}

void EngineView::begin_rank(const RankGroup&) {}

void EngineView::event(const RankGroup& group, const TraceFileInfo& file, const TraceEvent& event,
                       ClassMask) {
  builder_.add(group, file, event, emit_);
}

void EngineView::end_rank(const RankGroup& group) {
  builder_.finish_rank(group, emit_);
}

std::shared_ptr<const Snapshot> EngineView::finish() {
  if (!engine_) return nullptr;
  const std::int64_t now = latest_ns_ == std::numeric_limits<std::int64_t>::min() ? 0 : latest_ns_;
  return engine_->tick(now);
}

}  // namespace stallwatch::collector
