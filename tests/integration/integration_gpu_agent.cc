// SPDX-License-Identifier: MIT
// integration_gpu_agent: a training loop with a GPU, for the integration
// tests, on a machine without one. It links the real agent library and starts
// its GPU sources on the fake libcupti / libnvidia-ml.so.1 of tests/unit/gpu
// (STALLWATCH_CUPTI_PATH, STALLWATCH_NVML_PATH, FAKE_NVML_DEVICES set by the
// test), after initializing CUDA on the fake driver (FAKE_CUDA_LIBRARY), so
// NVML counters arrive as the real agent sends them. Every 100 ms
// iteration (main thread): fetch (cat dataloader, name fetch.iter) for 60 ms,
// then compute (cat compute) for 40 ms, during which the device runs 30 ms of
// work on GPU 0 stream 7:
//   --gpu cupti        a kernel "matmul" queued in the fake CUPTI, delivered
//                      by the agent's CUPTI source
//   --gpu cuda-events  a span "gpu/step" recorded with sw_complete_on, as
//                      stallwatch.torch does
//
//   integration_gpu_agent --gpu cupti|cuda-events --seconds 3 --job j --rank 0
//
// Exit: 0 after sw_gpu_stop() and a clean sw_stop(); 1 when the source did
// not start as asked; 2 on bad arguments.

#include <dlfcn.h>
#include <stallwatch/stallwatch.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr std::int64_t kMs = 1'000'000;

using NowFn = std::uint64_t (*)();
using AddKernelFn = void (*)(std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                             const char*);

void sleep_ms(int ms) {
  timespec t{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) != 0) {
  }
}

// The fake CUPTI's controls, from the library the agent loaded.
struct FakeCupti {
  NowFn now = nullptr;
  AddKernelFn add_kernel = nullptr;

  bool open() {
    const char* path = std::getenv("STALLWATCH_CUPTI_PATH");
    void* lib = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    if (lib == nullptr) return false;
    now = reinterpret_cast<NowFn>(dlsym(lib, "fake_cupti_now"));
    add_kernel = reinterpret_cast<AddKernelFn>(dlsym(lib, "fake_cupti_add_kernel"));
    return now != nullptr && add_kernel != nullptr;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string gpu;
  std::string job = "integration-gpu";
  std::string rank = "0";
  double seconds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--gpu") {
      gpu = argv[i + 1];
    } else if (key == "--seconds") {
      seconds = std::atof(argv[i + 1]);
    } else if (key == "--job") {
      job = argv[i + 1];
    } else if (key == "--rank") {
      rank = argv[i + 1];
    }
  }
  const bool cupti = gpu == "cupti";
  if ((!cupti && gpu != "cuda-events") || argc % 2 != 1 || seconds <= 0) {
    std::fprintf(stderr,
                 "usage: integration_gpu_agent --gpu cupti|cuda-events --seconds N "
                 "--job J --rank R\n");
    return 2;
  }

  sw_config* config = nullptr;
  if (sw_config_new(&config) != SW_OK || sw_config_set(config, "job", job.c_str()) != SW_OK ||
      sw_config_set(config, "rank", rank.c_str()) != SW_OK || sw_start(config) != SW_OK) {
    std::fprintf(stderr, "integration_gpu_agent: cannot start the agent\n");
    return 1;
  }
  sw_config_free(config);
  // A training loop initializes CUDA before its first step (the fake driver
  // that FAKE_CUDA_LIBRARY names); the agent never does it itself.
  if (const char* cuda = std::getenv("FAKE_CUDA_LIBRARY"); cuda != nullptr) {
    void* driver = dlopen(cuda, RTLD_NOW | RTLD_GLOBAL);
    using InitFn = int (*)(unsigned);
    auto init = driver != nullptr ? reinterpret_cast<InitFn>(dlsym(driver, "cuInit")) : nullptr;
    if (init == nullptr || init(0) != 0) return 1;
  }
  const int started = sw_gpu_start(gpu.c_str());
  sw_gpu_stats stats{};
  stats.size = sizeof stats;
  sw_gpu_get_stats(&stats);
  const std::uint32_t wanted = cupti ? SW_DEVICE_SOURCE_CUPTI : SW_DEVICE_SOURCE_CUDA_EVENTS;
  FakeCupti fake;
  if (started != SW_OK || stats.device_source != wanted || (cupti && !fake.open())) {
    char what[256] = {};
    sw_gpu_describe(what, sizeof what);
    std::fprintf(stderr, "integration_gpu_agent: %s did not start: %s\n", gpu.c_str(), what);
    return 1;
  }

  const sw_name_t dataloader = sw_intern("dataloader");
  const sw_name_t compute = sw_intern("compute");
  const sw_name_t device = sw_intern("gpu");
  const sw_name_t fetch = sw_intern("fetch.iter");
  const sw_name_t forward = sw_intern("forward");
  const sw_name_t span = sw_intern("gpu/step");
  const sw_lane_t lane = sw_device_lane(0, 7);
  const std::int64_t until = sw_now_ns() + static_cast<std::int64_t>(seconds * 1e9);
  while (sw_now_ns() < until) {
    const sw_region_t waiting = sw_region_begin(dataloader, fetch);
    sleep_ms(60);
    sw_region_end(waiting);
    const sw_region_t step = sw_region_begin(compute, forward);
    const std::int64_t agent_start = sw_now_ns();
    const std::uint64_t cupti_start = cupti ? fake.now() : 0;
    sleep_ms(40);
    sw_region_end(step);
    if (cupti) {
      fake.add_kernel(0, 7, cupti_start + 5 * kMs, cupti_start + 35 * kMs, "matmul");
    } else {
      sw_complete_on(lane, device, span, agent_start + 5 * kMs, 30 * kMs);
    }
  }
  sw_gpu_stop();
  const int stopped = sw_stop();
  if (stopped != SW_OK) {
    std::fprintf(stderr, "integration_gpu_agent: sw_stop: %s\n", sw_strerror(stopped));
    return 1;
  }
  return 0;
}
