// SPDX-License-Identifier: MIT
#include "rank_scheduler.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>

#include "traces/batch_channel.h"
#include "traces/rank_workers.h"
#include "traces/shipping_sink.h"

namespace stallwatch::collector {

namespace {

// Batches in flight per reading thread: enough that a reader rarely waits
// for the engine, few enough to keep memory flat (4096 events each).
constexpr std::size_t kSlotsPerThread = 4;

// Rank indexes of the given format (all when `only` is empty), biggest on
// disk first: the longest reads start first and finish together.
std::vector<std::size_t> biggest_first(const TracePlan& plan, std::optional<TraceFormat> only) {
  std::vector<std::size_t> order;
  std::vector<std::uintmax_t> bytes(plan.ranks.size(), 0);
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    if (only && plan.ranks[i].format != *only) continue;
    order.push_back(i);
    for (std::size_t source : plan.ranks[i].sources) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(plan.sources[source].info.path, ec);
      if (!ec) bytes[i] += size;
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return bytes[a] > bytes[b]; });
  return order;
}

std::string first_error(const std::vector<RankAnalysis>& ranks, const std::string& thread_error) {
  for (const RankAnalysis& r : ranks) {
    if (!r.error.empty()) return r.error;
  }
  return thread_error.empty() ? std::string() : "reading thread failed: " + thread_error;
}

}  // namespace

std::string analyze_ranks(const TracePlan& plan, const ClassMapping& mapping,
                          const DfAnalysisOptions& options, EngineView* view, std::size_t threads,
                          std::vector<RankAnalysis>& out) {
  out.clear();
  out.resize(plan.ranks.size());
  const std::int64_t origin = dftracer_bin_origin_guess(plan);
  const std::size_t workers = std::min(threads, plan.ranks.size());
  if (workers <= 1) {
    CachedClassifier classifier(mapping);
    for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
      out[i] = analyze_rank(plan, plan.ranks[i], classifier, options, origin, view);
      if (!out[i].error.empty()) return out[i].error;
    }
    return {};
  }

  std::vector<CachedClassifier> classifiers(workers, CachedClassifier(mapping));
  std::unique_ptr<BatchChannel> channel;
  std::vector<std::unique_ptr<ShippingSink>> sinks;
  if (view != nullptr) {
    channel = std::make_unique<BatchChannel>(workers, kSlotsPerThread * workers);
    for (std::size_t w = 0; w < workers; ++w) {
      sinks.push_back(std::make_unique<ShippingSink>(*channel, w, EngineView::batch_options()));
    }
  }
  RankWorkers pool(
      biggest_first(plan, std::nullopt), workers,
      [&](std::size_t rank, std::size_t worker) {
        TraceSink* sink = sinks.empty() ? nullptr : sinks[worker].get();
        out[rank] =
            analyze_rank(plan, plan.ranks[rank], classifiers[worker], options, origin, sink);
        return out[rank].error.empty();
      },
      [&](std::size_t) {
        if (channel) channel->done();
      });
  std::string engine_error;
  if (channel) {
    // Drained to the end whatever happens, or a reader would wait forever.
    while (ShippedBatch* batch = channel->pop()) {
      try {
        if (engine_error.empty()) view->ingest_shipped(*batch);
      } catch (const std::exception& e) {
        engine_error = std::string("engine view failed: ") + e.what();
      }
      channel->release(batch);
    }
  }
  pool.join();
  if (auto err = first_error(out, pool.error()); !err.empty()) return err;
  return engine_error;
}

std::string bin_ranks(const TracePlan& plan, const ClassMapping& mapping, std::size_t threads,
                      std::int64_t origin_ns, std::int64_t granularity_ns, BinnedTimes& bins) {
  const std::vector<std::size_t> order = biggest_first(plan, TraceFormat::kDftracer);
  const std::size_t workers = std::max<std::size_t>(1, std::min(threads, order.size()));
  std::vector<CachedClassifier> classifiers(workers, CachedClassifier(mapping));
  std::vector<BinnedTimes> partial(plan.ranks.size(), BinnedTimes(origin_ns, granularity_ns));
  std::vector<RankAnalysis> errors(plan.ranks.size());
  std::string thread_error;
  {
    RankWorkers pool(order, workers, [&](std::size_t rank, std::size_t worker) {
      errors[rank].error =
          bin_dftracer_rank(plan, plan.ranks[rank], classifiers[worker], partial[rank]);
      return errors[rank].error.empty();
    });
    pool.join();
    thread_error = pool.error();
  }
  if (auto err = first_error(errors, thread_error); !err.empty()) return err;
  for (std::size_t rank : order)
    bins.merge(partial[rank]);
  return {};
}

}  // namespace stallwatch::collector
