// SPDX-License-Identifier: MIT
#pragma once

#include "engine/snapshot.h"
#include "exposition.h"
#include "serve/prometheus_config.h"

namespace stallwatch::collector {

// `stallwatch_top_file_io_seconds{job_id,rank,window,path}` of `GET /metrics`
// (docs/api.md): for each rank with file I/O in the verdict window, its
// config.top_files files with the most I/O time there, as the API lists
// them. At most config.top_files series per rank; no family at all when
// config.top_files is 0. `snap` may be null (before the first tick): the
// family is still declared.
void write_top_file_family(Exposition& e, const Snapshot* snap, const PrometheusConfig& config);

}  // namespace stallwatch::collector
