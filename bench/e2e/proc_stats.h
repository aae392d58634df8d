// SPDX-License-Identifier: MIT
#pragma once

// What /proc says about a process: CPU time per thread (to check how much of
// a core stallwatchd's ingest threads take) and resident memory. Linux only;
// benchmark-only code.

#include <cstdint>
#include <string>
#include <vector>

namespace stallwatch::bench {

struct ThreadCpu {
  int tid = 0;
  std::string name;         // /proc/<pid>/task/<tid>/comm, e.g. "ZMQbg/IO/0"
  double cpu_seconds = 0;   // user + system
  double wait_seconds = 0;  // runnable but waiting for a CPU (schedstat)
};

// Every thread of `pid` (0: this process); empty when it is gone.
std::vector<ThreadCpu> thread_cpu(int pid);
// CPU spent by each thread between two samples of the same process,
// busiest first; threads that started in between count from zero.
std::vector<ThreadCpu> cpu_delta(const std::vector<ThreadCpu>& before,
                                 const std::vector<ThreadCpu>& after);
// The threads whose name starts with `prefix`, CPU and wait summed.
ThreadCpu threads_named(const std::vector<ThreadCpu>& delta, const std::string& prefix);
// Sum of the threads whose name starts with `prefix`.
double cpu_of(const std::vector<ThreadCpu>& delta, const std::string& prefix);

// VmRSS of `pid` in bytes; 0 when unknown.
std::uint64_t rss_bytes(int pid);

// The q-quantile (0..1, nearest rank) of `values`; 0 when empty.
double percentile(std::vector<double> values, double q);

}  // namespace stallwatch::bench
