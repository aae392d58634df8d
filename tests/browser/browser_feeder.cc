// SPDX-License-Identifier: MIT
// browser_feeder: one rank of a data-starved training job for the browser
// tests, recorded with the real agent library (libstallwatch.so) and sent
// wherever --collector points. Each step of the main thread:
//
//   MARK step=i (cat pipeline), fetch.iter (cat dataloader) for --fetch-ms,
//   then forward / backward / step (cat compute) for --compute-ms in all;
//   with --device, a device-busy span (cat gpu, on a CUDA-event lane, as
//   stallwatch.torch records it) covering forward and backward, so the rank
//   reports device_source "cuda-events"; without it the rank is
//   "compute-proxy". An epoch.start MARK and a batch_size COUNTER every
//   --steps-per-epoch steps (so a restarted collector learns them again).
//
// With --period-ms P the ranks train in lockstep, as data-parallel ranks do:
// each step starts at the next multiple of P ms of the wall clock (CLOCK_REALTIME,
// the same for every rank on the machine) and is numbered by it, and after
// backward comes an all_reduce (cat comm) that ends --sync-ms after the
// step's start for every rank, as a collective ends when its last rank
// arrives: a rank that arrives earlier waits in it for its peers.
//
// A forked data-loader worker process (role "worker") records read.batch
// regions (cat dataloader) until the main process goes away, like a PyTorch
// DataLoader worker. With --file PATH, the first half of each read.batch is
// a 65536-byte read call on PATH, recorded as libstallwatch_posix.so does (a
// posix_file mark names the file once, the call carries its bytes and file). Runs until --seconds
// pass or SIGTERM/SIGINT, then stops the agent cleanly (the collector marks the rank finished).
//
//   browser_feeder --collector EP --job J --rank R [--seconds 120]
//                  [--fetch-ms 60] [--compute-ms 40] [--batch-size 32]
//                  [--steps-per-epoch 40] [--device] [--period-ms P --sync-ms S]
//                  [--file PATH]
//
// Exit: 0 after a clean stop, 1 when the agent cannot start, 2 on bad flags.

#include <signal.h>
#include <stallwatch/stallwatch.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

volatile sig_atomic_t g_stop = 0;

void on_signal(int) {
  g_stop = 1;
}

struct Options {
  std::string collector;
  std::string job = "browser";
  std::string rank = "0";
  double seconds = 120;
  int fetch_ms = 60;
  int compute_ms = 40;
  long batch_size = 32;
  int steps_per_epoch = 40;
  bool device = false;
  int period_ms = 0;  // 0: free-running steps, no collective
  int sync_ms = 0;
  std::string file;  // the worker's reads are calls on this file
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    if (key == "--device") {
      o.device = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    if (key == "--collector") {
      o.collector = value;
    } else if (key == "--job") {
      o.job = value;
    } else if (key == "--rank") {
      o.rank = value;
    } else if (key == "--seconds") {
      o.seconds = std::atof(value);
    } else if (key == "--fetch-ms") {
      o.fetch_ms = std::atoi(value);
    } else if (key == "--compute-ms") {
      o.compute_ms = std::atoi(value);
    } else if (key == "--batch-size") {
      o.batch_size = std::atol(value);
    } else if (key == "--steps-per-epoch") {
      o.steps_per_epoch = std::atoi(value);
    } else if (key == "--period-ms") {
      o.period_ms = std::atoi(value);
    } else if (key == "--sync-ms") {
      o.sync_ms = std::atoi(value);
    } else if (key == "--file") {
      o.file = value;
    } else {
      return false;
    }
  }
  return !o.collector.empty() && o.seconds > 0 && o.fetch_ms >= 0 && o.compute_ms >= 4 &&
         o.steps_per_epoch > 0 && o.period_ms >= 0 &&
         (o.period_ms == 0 || (o.sync_ms > o.fetch_ms + o.compute_ms && o.sync_ms < o.period_ms));
}

std::int64_t realtime_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return std::int64_t{t.tv_sec} * 1000 + t.tv_nsec / 1'000'000;
}

void sleep_until_realtime_ms(std::int64_t ms) {
  const timespec t{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, nullptr) != 0 && g_stop == 0) {
  }
}

void sleep_ms(int ms) {
  timespec t{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) != 0 && g_stop == 0) {
  }
}

void region(sw_name_t cat, sw_name_t name, int ms) {
  const sw_region_t r = sw_region_begin(cat, name);
  sleep_ms(ms);
  sw_region_end(r);
}

// The data-loader worker: reads a batch, rests, repeats until the main
// process exits (it is then reparented) or the deadline passes.
[[noreturn]] void worker_loop(pid_t parent, std::int64_t until_ns, int read_ms,
                              const std::string& file) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  const sw_name_t cat = sw_intern("dataloader");
  const sw_name_t name = sw_intern("read.batch");
  const sw_name_t posix = sw_intern("POSIX");
  const sw_name_t read = sw_intern("read");
  const sw_name_t path = file.empty() ? 0 : sw_intern(file.c_str());
  if (path != 0) sw_mark(sw_intern("posix_file"), path, path);
  while (g_stop == 0 && ::getppid() == parent && sw_now_ns() < until_ns) {
    if (path == 0) {
      region(cat, name, read_ms);
    } else {
      const sw_region_t r = sw_region_begin(cat, name);
      const std::int64_t call = sw_call_start();
      sleep_ms(read_ms / 2);
      sw_call_end(posix, read, call, 65536, path);
      sleep_ms(read_ms - read_ms / 2);
      sw_region_end(r);
    }
    sleep_ms(read_ms / 2 + 1);
  }
  sw_stop();
  ::_exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: browser_feeder --collector EP --job J --rank R [--seconds N] "
                 "[--fetch-ms N] [--compute-ms N] [--batch-size N] [--steps-per-epoch N] "
                 "[--device] [--period-ms P --sync-ms S] [--file PATH]\n");
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);

  sw_config* config = nullptr;
  const auto set = [&config](const char* key, const std::string& value) {
    return sw_config_set(config, key, value.c_str()) == SW_OK;
  };
  if (sw_config_new(&config) != SW_OK || !set("collector", o.collector) || !set("job", o.job) ||
      !set("rank", o.rank) || !set("device_source", o.device ? "cuda-events" : "none")) {
    std::fprintf(stderr, "browser_feeder: cannot configure the agent\n");
    return 1;
  }
  const int started = sw_start(config);
  sw_config_free(config);
  if (started != SW_OK) {
    std::fprintf(stderr, "browser_feeder: sw_start: %s\n", sw_strerror(started));
    return 1;
  }
  const std::int64_t until = sw_now_ns() + static_cast<std::int64_t>(o.seconds * 1e9);

  const pid_t self = ::getpid();
  const pid_t worker = ::fork();
  if (worker == 0) worker_loop(self, until, o.fetch_ms, o.file);

  const sw_name_t pipeline = sw_intern("pipeline");
  const sw_name_t dataloader = sw_intern("dataloader");
  const sw_name_t compute = sw_intern("compute");
  const sw_name_t gpu = sw_intern("gpu");
  const sw_name_t step_mark = sw_intern("step");
  const sw_name_t epoch_mark = sw_intern("epoch.start");
  const sw_name_t fetch = sw_intern("fetch.iter");
  const sw_name_t forward = sw_intern("forward");
  const sw_name_t backward = sw_intern("backward");
  const sw_name_t optimizer = sw_intern("step");
  const sw_name_t kernel = sw_intern("sm90_xmma_gemm_bf16bf16_bf16f32");
  const sw_name_t batch_size = sw_intern("batch_size");
  const sw_name_t comm = sw_intern("comm");
  const sw_name_t all_reduce = sw_intern("all_reduce");
  const sw_lane_t lane = sw_device_lane(0, 7);

  const int forward_ms = o.compute_ms * 2 / 5;
  const int backward_ms = o.compute_ms / 2;
  const int optimizer_ms = o.compute_ms - forward_ms - backward_ms;
  for (std::int64_t step = 0; g_stop == 0 && sw_now_ns() < until; ++step) {
    std::int64_t step_start_ms = 0;
    if (o.period_ms > 0) {
      step = realtime_ms() / o.period_ms + 1;
      step_start_ms = step * o.period_ms;
      sleep_until_realtime_ms(step_start_ms);
    }
    if (step % o.steps_per_epoch == 0) {
      sw_mark(pipeline, epoch_mark, step / o.steps_per_epoch);
      sw_counter(pipeline, batch_size, o.batch_size);
    }
    sw_mark(pipeline, step_mark, step);
    region(dataloader, fetch, o.fetch_ms);
    const std::int64_t busy_from = sw_now_ns();
    region(compute, forward, forward_ms);
    region(compute, backward, backward_ms);
    if (o.device) {
      const std::int64_t launch = busy_from + 1'000'000;
      sw_complete_on(lane, gpu, kernel, launch, sw_now_ns() - launch);
    }
    if (o.period_ms > 0) {
      const sw_region_t r = sw_region_begin(comm, all_reduce);
      sleep_until_realtime_ms(step_start_ms + o.sync_ms);
      sw_region_end(r);
    }
    region(compute, optimizer, optimizer_ms);
  }

  ::kill(worker, SIGTERM);
  ::waitpid(worker, nullptr, 0);
  const int stopped = sw_stop();
  if (stopped != SW_OK) {
    std::fprintf(stderr, "browser_feeder: sw_stop: %s\n", sw_strerror(stopped));
    return 1;
  }
  return 0;
}
