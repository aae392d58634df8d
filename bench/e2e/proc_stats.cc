// SPDX-License-Identifier: MIT
#include "proc_stats.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stallwatch::bench {
namespace {

std::string proc_dir(int pid) {
  return pid == 0 ? "/proc/self" : "/proc/" + std::to_string(pid);
}

// utime + stime of a /proc stat line, in seconds.
double stat_cpu_seconds(const std::string& stat) {
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  double ticks = 0;
  // Fields after the command: state (3) ... utime (14), stime (15).
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace

std::vector<ThreadCpu> thread_cpu(int pid) {
  std::vector<ThreadCpu> threads;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc_dir(pid) + "/task", ec)) {
    ThreadCpu t;
    t.tid = std::atoi(entry.path().filename().c_str());
    std::ifstream comm(entry.path() / "comm");
    std::getline(comm, t.name);
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    t.cpu_seconds = stat_cpu_seconds(line);
    std::ifstream schedstat(entry.path() / "schedstat");
    double run_ns = 0;
    double wait_ns = 0;
    if (schedstat >> run_ns >> wait_ns) t.wait_seconds = wait_ns / 1e9;
    threads.push_back(t);
  }
  return threads;
}

std::vector<ThreadCpu> cpu_delta(const std::vector<ThreadCpu>& before,
                                 const std::vector<ThreadCpu>& after) {
  std::vector<ThreadCpu> delta;
  for (const ThreadCpu& a : after) {
    ThreadCpu d = a;
    for (const ThreadCpu& b : before) {
      if (b.tid != a.tid) continue;
      d.cpu_seconds -= b.cpu_seconds;
      d.wait_seconds -= b.wait_seconds;
    }
    delta.push_back(d);
  }
  std::sort(delta.begin(), delta.end(),
            [](const ThreadCpu& x, const ThreadCpu& y) { return x.cpu_seconds > y.cpu_seconds; });
  return delta;
}

ThreadCpu threads_named(const std::vector<ThreadCpu>& delta, const std::string& prefix) {
  ThreadCpu sum;
  sum.name = prefix;
  for (const ThreadCpu& t : delta) {
    if (t.name.rfind(prefix, 0) != 0) continue;
    sum.tid = t.tid;
    sum.cpu_seconds += t.cpu_seconds;
    sum.wait_seconds += t.wait_seconds;
  }
  return sum;
}

double cpu_of(const std::vector<ThreadCpu>& delta, const std::string& prefix) {
  double total = 0;
  for (const ThreadCpu& t : delta) {
    if (t.name.rfind(prefix, 0) == 0) total += t.cpu_seconds;
  }
  return total;
}

std::uint64_t rss_bytes(int pid) {
  std::ifstream status(proc_dir(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream s(line.substr(6));
      std::uint64_t kb = 0;
      s >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace stallwatch::bench
