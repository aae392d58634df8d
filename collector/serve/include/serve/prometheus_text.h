// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include "serve/prometheus_config.h"
#include "serve/published_state.h"
#include "serve/serve_stats.h"

namespace stallwatch::collector {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

// Renders `GET /metrics` in the Prometheus text format 0.0.4: every family
// with HELP and TYPE, base units, label values escaped (docs/api.md lists
// them). By default:
// - per rank `{job_id,rank}`: cumulative counters over the rank's finalized
//   time (`stallwatch_wall_seconds_total`, `..._data_stall_seconds_total`,
//   ..., `stallwatch_steps_total`, `stallwatch_samples_total`), which only
//   grow, so PromQL computes any window with rate(); the loss counters; one
//   `stallwatch_rank_info{state,device_source}` series; the verdict
//   (`stallwatch_verdict{window,verdict}`, one series) and step-time p50/p95
//   of one window;
// - per job: every window metric's mean and max over the ranks for the
//   verdict window (`stallwatch_job_<metric>{job_id,window,aggregate}`), the
//   job verdict, straggler and ranks by state;
// - the daemon's own ingest, engine, HTTP and alert figures.
// `config` adds per-rank gauges of every metric per window, activity
// figures and the job windows; the engine's step histogram is written when
// the snapshot has one. A pure function of its arguments; any thread.
std::string prometheus_text(const PublishedState& state, const ServeStats& serve,
                            const PrometheusConfig& config = {});

}  // namespace stallwatch::collector
