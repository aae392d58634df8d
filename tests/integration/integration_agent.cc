// SPDX-License-Identifier: MIT
// integration_agent: a scripted training loop for the integration tests. It
// links the real agent library (libstallwatch.so), connects wherever
// STALLWATCH_COLLECTOR points, and replays a known schedule:
//
//   every iteration (main thread):  MARK step=i, fetch (cat dataloader,
//     name fetch.iter), then forward, backward, step (cat compute)
//   a loader thread:                 read.batch regions (cat dataloader), APP_IO only
//
// Every time the agent stamps (a region's begin or end, a mark) is bracketed
// by two sw_now_ns() readings taken just before and just after the call, and
// written to --report at exit with the agent's own sw_stats. The tests derive
// their expected figures and their tolerances from these brackets, not from
// nominal sleeps, so they hold on a loaded machine.
//
//   integration_agent --schedule starved|overlapped --seconds 6 --job j --rank 0
//                     [--report FILE] [--batch-size 32] [--burst N]
//
// --burst N: after the schedule, N counter samples as fast as possible, then
// stop (a process that exits right after a burst).
//
// Exit: 0 after a clean sw_stop() (the collector marks the rank finished);
// 2 on bad arguments.

#include <stallwatch/stallwatch.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Schedule {
  const char* name;
  int fetch_ms;
  int forward_ms;
  int backward_ms;
  int optimizer_ms;
  int loader_read_ms;
  int loader_period_ms;
};

// starved: 60 % of each 100 ms iteration waiting for data, 40 % compute.
// overlapped: 2 ms of each ~60 ms iteration in fetch (about 3 %).
constexpr Schedule kSchedules[] = {
    {"starved", 60, 15, 20, 5, 30, 50},
    {"overlapped", 2, 20, 30, 8, 25, 50},
};

struct Bracket {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

struct Region {
  const char* cls;
  Bracket begin;
  Bracket end;
};

struct Mark {
  std::int64_t value;
  Bracket at;
};

struct Names {
  sw_name_t dataloader, compute, pipeline;
  sw_name_t fetch, forward, backward, step_op, read_batch, step_mark, batch_size;
};

void sleep_ms(int ms) {
  timespec t{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) != 0) {
  }
}

// Opens a region, sleeps, closes it; records both brackets.
Region timed_region(const char* cls, sw_name_t cat, sw_name_t name, int ms) {
  Region r{cls, {}, {}};
  r.begin.lo = sw_now_ns();
  const sw_region_t token = sw_region_begin(cat, name);
  r.begin.hi = sw_now_ns();
  sleep_ms(ms);
  r.end.lo = sw_now_ns();
  sw_region_end(token);
  r.end.hi = sw_now_ns();
  return r;
}

bool parse_args(int argc, char** argv, std::string& schedule, double& seconds, std::string& job,
                std::string& rank, std::string& report, long& batch_size, long& burst) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--schedule") {
      schedule = value;
    } else if (key == "--seconds") {
      seconds = std::atof(value);
    } else if (key == "--job") {
      job = value;
    } else if (key == "--rank") {
      rank = value;
    } else if (key == "--report") {
      report = value;
    } else if (key == "--batch-size") {
      batch_size = std::atol(value);
    } else if (key == "--burst") {
      burst = std::atol(value);
    } else {
      std::fprintf(stderr, "integration_agent: unknown flag %s\n", key.c_str());
      return false;
    }
  }
  return argc % 2 == 1 && seconds > 0;
}

void write_report(const std::string& path, const std::vector<Region>& regions,
                  const std::vector<Mark>& marks, const Bracket& batch_size_at, long batch_size) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return;
  for (const Region& r : regions) {
    std::fprintf(f, "region %s %lld %lld %lld %lld\n", r.cls, static_cast<long long>(r.begin.lo),
                 static_cast<long long>(r.begin.hi), static_cast<long long>(r.end.lo),
                 static_cast<long long>(r.end.hi));
  }
  for (const Mark& m : marks) {
    std::fprintf(f, "mark step %lld %lld %lld\n", static_cast<long long>(m.value),
                 static_cast<long long>(m.at.lo), static_cast<long long>(m.at.hi));
  }
  std::fprintf(f, "counter batch_size %ld %lld %lld\n", batch_size,
               static_cast<long long>(batch_size_at.lo), static_cast<long long>(batch_size_at.hi));
  sw_stats stats{};
  stats.size = sizeof stats;
  sw_get_stats(&stats);
  std::fprintf(f, "stats %llu %llu %llu %llu %llu %llu %llu\n",
               static_cast<unsigned long long>(stats.events_recorded),
               static_cast<unsigned long long>(stats.events_dropped),
               static_cast<unsigned long long>(stats.events_sent),
               static_cast<unsigned long long>(stats.events_lost_in_send),
               static_cast<unsigned long long>(stats.batches_sent),
               static_cast<unsigned long long>(stats.queue_depth),
               static_cast<unsigned long long>(stats.send_failures));
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  std::string schedule_name = "starved";
  double seconds = 6;
  std::string job = "integration";
  std::string rank = "0";
  std::string report;
  long batch_size = 32;
  long burst = 0;
  if (!parse_args(argc, argv, schedule_name, seconds, job, rank, report, batch_size, burst)) {
    std::fprintf(stderr,
                 "usage: integration_agent --schedule starved|overlapped --seconds N --job J "
                 "--rank R [--report FILE] [--batch-size N] [--burst N]\n");
    return 2;
  }
  const Schedule* schedule = nullptr;
  for (const Schedule& s : kSchedules) {
    if (schedule_name == s.name) schedule = &s;
  }
  if (schedule == nullptr) {
    std::fprintf(stderr, "integration_agent: unknown schedule %s\n", schedule_name.c_str());
    return 2;
  }

  sw_config* config = nullptr;
  if (sw_config_new(&config) != SW_OK || sw_config_set(config, "job", job.c_str()) != SW_OK ||
      sw_config_set(config, "rank", rank.c_str()) != SW_OK) {
    std::fprintf(stderr, "integration_agent: cannot configure the agent\n");
    return 1;
  }
  const int started = sw_start(config);
  sw_config_free(config);
  if (started != SW_OK) {
    std::fprintf(stderr, "integration_agent: sw_start: %s\n", sw_strerror(started));
    return 1;
  }
  const Names n{sw_intern("dataloader"), sw_intern("compute"),    sw_intern("pipeline"),
                sw_intern("fetch.iter"), sw_intern("forward"),    sw_intern("backward"),
                sw_intern("step"),       sw_intern("read.batch"), sw_intern("step"),
                sw_intern("batch_size")};

  std::vector<Region> regions;
  std::vector<Region> loader_regions;
  std::vector<Mark> marks;
  regions.reserve(4096);
  loader_regions.reserve(4096);
  marks.reserve(1024);
  std::atomic<bool> loading{true};
  std::thread loader([&] {
    while (loading.load()) {
      loader_regions.push_back(
          timed_region("loader", n.dataloader, n.read_batch, schedule->loader_read_ms));
      sleep_ms(schedule->loader_period_ms - schedule->loader_read_ms);
    }
  });

  Bracket batch_size_at;
  batch_size_at.lo = sw_now_ns();
  sw_counter(n.pipeline, n.batch_size, batch_size);
  batch_size_at.hi = sw_now_ns();
  const std::int64_t until = sw_now_ns() + static_cast<std::int64_t>(seconds * 1e9);
  for (std::int64_t step = 1; sw_now_ns() < until; ++step) {
    Mark mark{step, {}};
    mark.at.lo = sw_now_ns();
    sw_mark(n.pipeline, n.step_mark, step);
    mark.at.hi = sw_now_ns();
    marks.push_back(mark);
    regions.push_back(timed_region("fetch", n.dataloader, n.fetch, schedule->fetch_ms));
    regions.push_back(timed_region("compute", n.compute, n.forward, schedule->forward_ms));
    regions.push_back(timed_region("compute", n.compute, n.backward, schedule->backward_ms));
    regions.push_back(timed_region("compute", n.compute, n.step_op, schedule->optimizer_ms));
  }
  loading = false;
  loader.join();
  regions.insert(regions.end(), loader_regions.begin(), loader_regions.end());
  const sw_name_t burst_name = sw_intern("burst");
  for (long i = 0; i < burst; ++i)
    sw_counter(n.pipeline, burst_name, i);

  const int stopped = sw_stop();
  if (!report.empty()) write_report(report, regions, marks, batch_size_at, batch_size);
  if (stopped != SW_OK) {
    std::fprintf(stderr, "integration_agent: sw_stop: %s\n", sw_strerror(stopped));
    return 1;
  }
  return 0;
}
