// SPDX-License-Identifier: MIT
// Times `stallwatch analyze` (run_analyze, --json) on the given traces in this
// process and prints one JSON line: inflated MB/s (per wall second and per CPU
// second of the analysis, all threads), events/s, the process's peak RSS, and
// the DFAnalyzer summary fields for cross-checking.
//
// usage: replay_analyze_bench [analyze options] FILE...

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyze_command.h"

namespace {

// User + system CPU seconds of this process (all threads) so far.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  args.push_back("--json");
  std::ostringstream out, err;
  // Only the analysis counts, not loading the program.
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  const int code = stallwatch::collector::run_analyze(args, out, err);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_start;
  if (code != 0) {
    std::cerr << err.str();
    return code;
  }
  const auto doc = nlohmann::json::parse(out.str());
  double bytes = 0, events = 0, malformed = 0;
  for (const auto& read : doc.at("reads")) {
    bytes += read.at("bytes").get<double>();
    events += read.at("events").get<double>();
    malformed += read.at("malformed").get<double>();
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  nlohmann::json result = {{"bench", "replay_analyze_one"},
                           {"seconds", seconds},
                           {"cpu_seconds", cpu},
                           {"mb_per_cpu_s", bytes / 1e6 / cpu},
                           {"mb", bytes / 1e6},
                           {"mb_per_s", bytes / 1e6 / seconds},
                           {"events", events},
                           {"events_per_s", events / seconds},
                           {"malformed", malformed},
                           {"peak_rss_mb", static_cast<double>(usage.ru_maxrss) / 1024.0}};
  if (doc.contains("dfanalyzer")) {
    const auto& df = doc.at("dfanalyzer");
    result["summary"] = {{"job_time_seconds", df.at("job_time_seconds")},
                         {"compute_seconds", df.at("compute_seconds")},
                         {"app_io_seconds", df.at("app_io_seconds")},
                         {"io_seconds", df.at("io_seconds")},
                         {"fetch_seconds", df.at("fetch_seconds")},
                         {"unoverlapped_app_io_seconds", df.at("unoverlapped_app_io_seconds")},
                         {"unoverlapped_io_seconds", df.at("unoverlapped_io_seconds")},
                         {"unoverlapped_compute_seconds", df.at("unoverlapped_compute_seconds")}};
  }
  if (doc.contains("hta")) result["hta"] = doc.at("hta").at("ranks");
  std::cout << result.dump() << "\n";
  return 0;
}
