// SPDX-License-Identifier: MIT
// Added cost of the POSIX capture (libstallwatch_posix.so) per 4 KiB pread of
// a file in the page cache: the C library's pread called directly (bare), the
// interposed pread on a descriptor the capture does not trace (untraced: one
// table lookup), and on a traced data file (traced: a POSIX region recorded),
// side by side in one run. The binary links libstallwatch_posix.so ahead of
// the C library, so its pread calls go through the interposer exactly as
// under LD_PRELOAD; the bare calls use the C library's own symbol.
//
// Method: kRounds rounds; each round times kChunk calls of each kind in turn
// (interleaved, so drift hits all three alike), then, untimed, sw_flush()
// lets the sender drain the traced regions. The figure per kind is the median
// over rounds of ns per call; "added" subtracts the bare median. Each chunk is
// timed twice: wall clock, and the calling thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID, user and system), which a busy machine's other
// work does not inflate while this thread waits for a core: on a shared
// machine, read the CPU figures, and their 10th percentile over rounds
// (interference only ever adds time) when the machine is busy. The agent
// sends to a drained PULL socket, as with a live collector. Measure in the
// release preset; ends with one JSON line.
//
// What a traced call adds, besides the table lookup: in_capture and errno
// kept, a TSC read before the call, and after it a TSC read, one read of the
// agent's clock and one 32-byte record (sw_call_start/sw_call_end). Where the
// agent's clock is the TSC both reads are the TSC; STALLWATCH_CLOCK=monotonic
// reads CLOCK_MONOTONIC at both ends. Before/after a change: keep the old
// libraries' directory and run this binary alternately with
// LD_LIBRARY_PATH=<old dir> and without (its RUNPATH is the build tree).

#include <dlfcn.h>
#include <fcntl.h>
#include <stallwatch/stallwatch.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "drain_collector.h"

namespace {

using Clock = std::chrono::steady_clock;
using PreadFn = ssize_t(int, void*, size_t, off_t);
using OpenFn = int(const char*, int, ...);

constexpr int kRounds = 400;
constexpr int kChunk = 2000;
constexpr std::size_t kRead = 4096;
constexpr off_t kFileBytes = 1 << 20;

// The `q` quantile (0..1) of `values`, nearest rank.
double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5)];
}

double median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

double thread_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

// Wall-clock and thread-CPU ns per call, each kind's own series.
struct Series {
  std::vector<double> wall;
  std::vector<double> cpu;
};

template <typename Read>
void time_chunk(Series& out, Read&& read_at) {
  const double cpu_start = thread_cpu_ns();
  const auto start = Clock::now();
  for (int i = 0; i < kChunk; ++i)
    read_at(static_cast<off_t>((i * kRead) % static_cast<std::size_t>(kFileBytes)));
  const auto elapsed = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  out.cpu.push_back((thread_cpu_ns() - cpu_start) / kChunk);
  out.wall.push_back(elapsed / kChunk);
}

}  // namespace

int main() {
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  auto* bare_pread = reinterpret_cast<PreadFn*>(libc != nullptr ? dlsym(libc, "pread") : nullptr);
  auto* bare_open = reinterpret_cast<OpenFn*>(libc != nullptr ? dlsym(libc, "open") : nullptr);
  if (bare_pread == nullptr || bare_open == nullptr ||
      reinterpret_cast<void*>(bare_pread) == reinterpret_cast<void*>(&pread)) {
    std::fprintf(stderr, "posix_bench: pread is not interposed (link libstallwatch_posix.so)\n");
    return 1;
  }

  stallwatch::bench::DrainCollector collector;
  sw_config* config = nullptr;
  sw_config_new(&config);
  sw_config_set(config, "collector", collector.endpoint().c_str());
  sw_config_set(config, "buffer_events", "65536");
  if (sw_start(config) != SW_OK) {
    std::fprintf(stderr, "posix_bench: sw_start failed\n");
    return 1;
  }
  sw_config_free(config);

  char dir_template[] = "/tmp/stallwatch-posix-bench-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string path = dir + "/data.bin";
  {
    std::vector<char> bytes(static_cast<std::size_t>(kFileBytes), 'x');
    const int out = bare_open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || write(out, bytes.data(), bytes.size()) != kFileBytes) return 1;
    close(out);
  }
  const int traced_fd = open(path.c_str(), O_RDONLY);         // interposed: traced
  const int untraced_fd = bare_open(path.c_str(), O_RDONLY);  // never seen by the capture
  std::vector<char> buffer(kRead);
  for (off_t offset = 0; offset < kFileBytes; offset += kRead)  // into the page cache
    bare_pread(traced_fd, buffer.data(), kRead, offset);

  Series bare, untraced, traced;
  for (int round = 0; round < kRounds; ++round) {
    time_chunk(bare, [&](off_t offset) { bare_pread(traced_fd, buffer.data(), kRead, offset); });
    time_chunk(untraced, [&](off_t offset) { pread(untraced_fd, buffer.data(), kRead, offset); });
    time_chunk(traced, [&](off_t offset) { pread(traced_fd, buffer.data(), kRead, offset); });
    sw_flush(1000);
  }
  sw_stats stats{};
  stats.size = sizeof(stats);
  sw_get_stats(&stats);
  close(traced_fd);
  close(untraced_fd);
  unlink(path.c_str());
  rmdir(dir.c_str());
  sw_stop();

  const double bare_ns = median(bare.wall);
  const double untraced_ns = median(untraced.wall);
  const double traced_ns = median(traced.wall);
  const double bare_cpu = median(bare.cpu);
  const double untraced_cpu = median(untraced.cpu);
  const double traced_cpu = median(traced.cpu);
  std::printf("pread 4 KiB from page cache, median over %d rounds of %d calls:\n", kRounds, kChunk);
  std::printf("  wall clock:\n");
  std::printf("    bare      %8.1f ns/call\n", bare_ns);
  std::printf("    untraced  %8.1f ns/call  (added %+.1f ns)\n", untraced_ns,
              untraced_ns - bare_ns);
  std::printf("    traced    %8.1f ns/call  (added %+.1f ns)\n", traced_ns, traced_ns - bare_ns);
  std::printf("  thread CPU time:\n");
  std::printf("    bare      %8.1f ns/call\n", bare_cpu);
  std::printf("    untraced  %8.1f ns/call  (added %+.1f ns)\n", untraced_cpu,
              untraced_cpu - bare_cpu);
  std::printf("    traced    %8.1f ns/call  (added %+.1f ns)\n", traced_cpu, traced_cpu - bare_cpu);
  // Neighbours on a shared machine only ever add time (cache and TLB
  // pollution, stolen cycles): the 10th percentile of the CPU figures is
  // the steadiest comparison there.
  const double bare_p10 = quantile(bare.cpu, 0.1);
  const double untraced_p10 = quantile(untraced.cpu, 0.1);
  const double traced_p10 = quantile(traced.cpu, 0.1);
  std::printf("  thread CPU time, 10th percentile over rounds:\n");
  std::printf("    bare      %8.1f ns/call\n", bare_p10);
  std::printf("    untraced  %8.1f ns/call  (added %+.1f ns)\n", untraced_p10,
              untraced_p10 - bare_p10);
  std::printf("    traced    %8.1f ns/call  (added %+.1f ns)\n", traced_p10, traced_p10 - bare_p10);
  std::printf("  events recorded %llu, dropped %llu\n",
              static_cast<unsigned long long>(stats.events_recorded),
              static_cast<unsigned long long>(stats.events_dropped));
  std::printf(
      "{\"bench\":\"posix_pread_4k\",\"bare_ns\":%.1f,\"untraced_added_ns\":%.1f,"
      "\"traced_added_ns\":%.1f,\"bare_cpu_ns\":%.1f,\"untraced_added_cpu_ns\":%.1f,"
      "\"traced_added_cpu_ns\":%.1f,\"bare_cpu_p10_ns\":%.1f,\"untraced_added_cpu_p10_ns\":%.1f,"
      "\"traced_added_cpu_p10_ns\":%.1f,\"events_dropped\":%llu}\n",
      bare_ns, untraced_ns - bare_ns, traced_ns - bare_ns, bare_cpu, untraced_cpu - bare_cpu,
      traced_cpu - bare_cpu, bare_p10, untraced_p10 - bare_p10, traced_p10 - bare_p10,
      static_cast<unsigned long long>(stats.events_dropped));
  return 0;
}
