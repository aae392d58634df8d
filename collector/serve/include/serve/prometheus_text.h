#pragma once

#include <string>

#include "serve/published_state.h"
#include "serve/serve_stats.h"

namespace stallwatch::collector {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

// Renders `GET /metrics` in the Prometheus text format 0.0.4: every family
// with HELP and TYPE, base units, label values escaped. Families:
// - per rank x window gauges `stallwatch_<metric>{job_id,rank,window}` for
//   every numeric window metric (NaN when undefined), and
//   `stallwatch_verdict{...,verdict}` as 0/1;
// - per rank `stallwatch_rank_state{job_id,rank,state}` (0/1),
//   `stallwatch_rank_info{job_id,rank,device_source}`, epoch and step, and
//   the loss counters `stallwatch_{events_received,agent_dropped,...}_total`;
// - the daemon's own ingest, engine and HTTP figures;
// - `stallwatch_alert_state{alertname,job_id,rank,severity,state}` (0/1).
// A pure function of its arguments; any thread.
std::string prometheus_text(const PublishedState& state, const ServeStats& serve);

}  // namespace stallwatch::collector
