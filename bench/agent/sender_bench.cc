// SPDX-License-Identifier: MIT
// Sender throughput: events per second drained from the rings, encoded into
// full Batches (8192 events) and sent over ipc to a PULL socket drained by
// another thread, through the real agent (libstallwatch.so).
//
// Method: each round, one producer thread records kRoundEvents marks into
// its ring (1 Mi events), untimed as far as possible; then sw_flush() is
// timed and the events the sender handed to ZeroMQ meanwhile (sw_stats
// delta) are divided by that time. The sender may already have drained part
// of the round while it was being recorded; only events sent inside the
// timed window count. The sender thread's own CPU time over the whole run
// gives a second figure that a busy machine disturbs less: events per
// second of sender CPU.

#include <benchmark/benchmark.h>
#include <dirent.h>
#include <stallwatch/stallwatch.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "drain_collector.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRoundEvents = 480'000;  // below half of the ring: no early wake-up

sw_stats current_stats() {
  sw_stats stats{};
  stats.size = sizeof(stats);
  sw_get_stats(&stats);
  return stats;
}

std::vector<double> rates;  // events per second, one per round

// CPU time of this process's thread named `name` (Linux per-thread CPU clock).
std::int64_t thread_cpu_ns(const char* name) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  std::int64_t result = -1;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string thread_name;
    std::getline(comm, thread_name);
    if (thread_name != name) continue;
    const auto tid = static_cast<clockid_t>(std::stol(entry->d_name));
    const clockid_t clock = (~tid << 3) | 6;  // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
    timespec cpu{};
    if (clock_gettime(clock, &cpu) == 0) result = cpu.tv_sec * 1'000'000'000LL + cpu.tv_nsec;
  }
  closedir(tasks);
  return result;
}

void BM_SenderThroughput(benchmark::State& state) {
  sw_name_t names[16];
  for (int i = 0; i < 16; ++i)
    names[i] = sw_intern(("name-" + std::to_string(i)).c_str());
  const sw_name_t cat = sw_intern("dataloader");
  std::uint64_t sent_total = 0;
  for (auto _ : state) {
    for (int i = 0; i < kRoundEvents; ++i)
      sw_mark(cat, names[i & 15], i);
    const std::uint64_t sent_before = current_stats().events_sent;
    const auto start = Clock::now();
    sw_flush(60'000);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const std::uint64_t sent = current_stats().events_sent - sent_before;
    state.SetIterationTime(seconds);
    if (sent > kRoundEvents / 2) rates.push_back(static_cast<double>(sent) / seconds);
    sent_total += sent;
  }
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(sent_total), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_SenderThroughput)->UseManualTime()->Iterations(40);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  stallwatch::bench::DrainCollector drain;
  sw_config* config = nullptr;
  sw_config_new(&config);
  sw_config_set(config, "collector", drain.endpoint().c_str());
  sw_config_set(config, "buffer_events", "1048576");
  sw_config_set(config, "batch_events", "8192");
  sw_config_set(config, "flush_interval_ms", "50");
  sw_config_set(config, "send_hwm", "1000");
  if (sw_start(config) != SW_OK) return 1;
  sw_config_free(config);
  const std::int64_t cpu_before = thread_cpu_ns("stallwatch-send");
  const std::uint64_t sent_before = current_stats().events_sent;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const sw_stats stats = current_stats();
  const std::int64_t cpu_after = thread_cpu_ns("stallwatch-send");
  const double per_cpu_second = static_cast<double>(stats.events_sent - sent_before) /
                                (static_cast<double>(cpu_after - cpu_before) * 1e-9);
  sw_stop();

  std::sort(rates.begin(), rates.end());
  const double median = rates.empty() ? 0 : rates[rates.size() / 2];
  const double best = rates.empty() ? 0 : rates.back();
  std::printf(
      "\nsender: median %.1f M events/s, best %.1f M events/s over %zu rounds; "
      "%.1f M events per second of sender CPU (%.1f ns/event)\n",
      median / 1e6, best / 1e6, rates.size(), per_cpu_second / 1e6, 1e9 / per_cpu_second);
  std::printf(
      "agent: recorded %llu, sent %llu, dropped %llu (lost in send %llu), batches %llu, "
      "refused batches %llu; collector received %llu frames, %.1f MB\n",
      static_cast<unsigned long long>(stats.events_recorded),
      static_cast<unsigned long long>(stats.events_sent),
      static_cast<unsigned long long>(stats.events_dropped),
      static_cast<unsigned long long>(stats.events_lost_in_send),
      static_cast<unsigned long long>(stats.batches_sent),
      static_cast<unsigned long long>(stats.send_failures),
      static_cast<unsigned long long>(drain.frames()), static_cast<double>(drain.bytes()) / 1e6);
  std::printf(
      "{\"bench\":\"agent_sender\",\"events_per_second_median\":%.0f,"
      "\"events_per_second_best\":%.0f,\"events_per_sender_cpu_second\":%.0f,"
      "\"batch_events\":8192,\"dropped\":%llu}\n",
      median, best, per_cpu_second, static_cast<unsigned long long>(stats.events_dropped));
  return 0;
}
