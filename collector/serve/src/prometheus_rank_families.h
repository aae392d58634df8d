// SPDX-License-Identifier: MIT
#pragma once

#include "engine/snapshot.h"
#include "exposition.h"
#include "serve/prometheus_config.h"

namespace stallwatch::collector {

// The per-rank families of `GET /metrics` (docs/api.md): cumulative counters
// over each rank's finalized time, the loss counters, one info series (state,
// device source), the verdict and step-time quantiles, and what `config`
// adds (per-window gauges, activity, the step histogram when the engine
// keeps one), then NVML's latest samples. `snap` may be null (before the
// first tick): the families are still declared.
void write_rank_families(Exposition& e, const Snapshot* snap, const PrometheusConfig& config);

// The per-job families: every window metric's mean and max over the job's
// ranks, the job verdict and straggler for each job window, and its ranks by
// state.
void write_job_families(Exposition& e, const Snapshot* snap, const PrometheusConfig& config);

}  // namespace stallwatch::collector
