// SPDX-License-Identifier: MIT
#include "api_paths.h"

#include "endpoint_url.h"

namespace stallwatch::tui {

std::string job_path(std::string_view job) {
  return std::string(kJobsPath) + "/" + encode_path_segment(job);
}

std::string series_path(std::string_view job, std::string_view metric, std::string_view window,
                        int seconds) {
  return job_path(job) + "/series?metric=" + encode_path_segment(metric) +
         "&window=" + encode_path_segment(window) + "&seconds=" + std::to_string(seconds);
}

std::string timeline_path(std::string_view job, std::int32_t rank, int seconds) {
  return job_path(job) + "/ranks/" + std::to_string(rank) +
         "/timeline?seconds=" + std::to_string(seconds);
}

}  // namespace stallwatch::tui
