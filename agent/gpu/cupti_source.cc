#include "cupti_source.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <new>
#include <optional>
#include <string_view>

#include "activity_interval.h"
#include "agent.h"
#include "cupti_record_parser.h"
#include "diagnostics.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {
namespace {

constexpr std::size_t kDefaultBuffers = 8;
constexpr std::size_t kDefaultBufferKib = 1024;
constexpr std::size_t kMinFlushEvery = 64;
constexpr int kClockSampleTries = 3;
constexpr std::array<cupti::ActivityKind, 3> kKinds{cupti::kActivityConcurrentKernel,
                                                    cupti::kActivityMemcpy, cupti::kActivityMemset};

std::size_t env_size(const char* variable, std::size_t fallback, std::size_t min,
                     std::size_t max) noexcept {
  const char* text = std::getenv(variable);
  if (text == nullptr || text[0] == '\0') return fallback;
  const std::string_view value(text);
  std::size_t parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size() || parsed < min || parsed > max) {
    report_problem("ignoring %s='%s': expected %zu..%zu", variable, text, min, max);
    return fallback;
  }
  return parsed;
}

bool driver_present() noexcept {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (driver == nullptr) driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  return driver != nullptr;
}

// Why CUPTI refused, in words an operator acts on.
std::string failure(const CuptiLibrary& lib, const char* call, cupti::Result rc) {
  switch (rc) {
    case cupti::kErrorMultipleSubscribers:
    case cupti::kErrorMaxLimitReached:
      return "taken by another CUPTI client (Nsight Systems, Nsight Compute, a debugger or a "
             "profiler)";
    case cupti::kErrorInsufficientPrivileges:
      return "not permitted to trace the GPU (the driver restricts profiling to admin users)";
    default:
      break;
  }
  if (!driver_present()) {
    return std::string(call) + " failed (" + lib.describe(rc) +
           "): no CUDA driver (libcuda.so.1 not found)";
  }
  if (rc == cupti::kErrorNotInitialized) {
    return "CUPTI could not initialize (no usable CUDA driver or GPU)";
  }
  return std::string(call) + " failed: " + lib.describe(rc);
}

}  // namespace

CuptiSource& CuptiSource::instance() noexcept {
  // Built on first use and never destroyed: CUPTI may call back during exit.
  alignas(CuptiSource) static unsigned char storage[sizeof(CuptiSource)];
  static CuptiSource* const source = new (storage) CuptiSource();
  return *source;
}

bool CuptiSource::start(std::string& why) noexcept {
  try {
    if (!loaded_) {
      if (!CuptiLibrary::load(lib_, why)) return false;
      loaded_ = true;
    }
    std::uint32_t version = 0;
    cupti::Result rc = lib_.get_version(&version);
    if (rc != cupti::kSuccess) {
      why = failure(lib_, "cuptiGetVersion", rc);
      return false;
    }
    if (version < cupti::kMinApiVersion) {
      why = lib_.path + " has CUPTI API version " + std::to_string(version) +
            ", older than CUDA 9.0's";
      return false;
    }
    rc = lib_.subscribe(&subscriber_, &CuptiSource::on_callback, nullptr);
    if (rc != cupti::kSuccess) {
      subscriber_ = nullptr;
      why = failure(lib_, "cuptiSubscribe", rc);
      return false;
    }
    const std::size_t buffers = env_size("STALLWATCH_CUPTI_BUFFERS", kDefaultBuffers, 2, 256);
    const std::size_t kib = env_size("STALLWATCH_CUPTI_BUFFER_KB", kDefaultBufferKib, 4, 65536);
    if (!pool_.configure(buffers, kib * 1024)) {
      why = "out of memory for the activity buffers";
      lib_.unsubscribe(subscriber_);
      subscriber_ = nullptr;
      return false;
    }
    {
      std::lock_guard lock(clock_mutex_);
      clock_resets_before_ += clock_.resets();
      clock_ = ClockMap();
    }
    sample_clock();
    {
      const Agent* agent = Agent::instance();
      std::lock_guard lock(deliver_mutex_);
      sink_.set_flush_every(
          agent != nullptr ? std::max<std::size_t>(kMinFlushEvery, agent->buffer_events() / 2) : 0);
    }
    rc = lib_.register_callbacks(&CuptiSource::on_buffer_requested,
                                 &CuptiSource::on_buffer_completed);
    if (rc != cupti::kSuccess || !enable_kinds(why)) {
      if (rc != cupti::kSuccess) why = failure(lib_, "cuptiActivityRegisterCallbacks", rc);
      lib_.unsubscribe(subscriber_);
      subscriber_ = nullptr;
      return false;
    }
    running_ = true;
    return true;
  } catch (...) {
    why = "out of memory while starting CUPTI";
    return false;
  }
}

bool CuptiSource::enable_kinds(std::string& why) noexcept {
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    const cupti::Result rc = lib_.activity_enable(kKinds[i]);
    if (rc == cupti::kSuccess) continue;
    for (std::size_t j = 0; j < i; ++j)
      lib_.activity_disable(kKinds[j]);
    try {
      why = failure(lib_, "cuptiActivityEnable", rc);
    } catch (...) {
      why.clear();
    }
    return false;
  }
  return true;
}

void CuptiSource::disable_kinds() noexcept {
  for (const cupti::ActivityKind kind : kKinds)
    lib_.activity_disable(kind);
}

void CuptiSource::poll(std::int64_t) noexcept {
  if (!running_) return;
  sample_clock();
  lib_.flush_all(0);
}

void CuptiSource::stop() noexcept {
  if (!running_) return;
  running_ = false;
  disable_kinds();
  lib_.flush_all(cupti::kFlushForced);
  lib_.unsubscribe(subscriber_);
  subscriber_ = nullptr;
}

void CuptiSource::abandon() noexcept {
  running_ = false;
  subscriber_ = nullptr;
}

void CuptiSource::sample_clock() noexcept {
  std::int64_t best_gap = INT64_MAX;
  std::int64_t best_agent = 0;
  std::uint64_t best_source = 0;
  for (int i = 0; i < kClockSampleTries; ++i) {
    const std::int64_t before = sw_now_ns();
    std::uint64_t source = 0;
    if (lib_.get_timestamp(&source) != cupti::kSuccess) return;
    const std::int64_t after = sw_now_ns();
    if (after - before < best_gap) {
      best_gap = after - before;
      best_agent = before + best_gap / 2;
      best_source = source;
    }
  }
  if (best_source > static_cast<std::uint64_t>(INT64_MAX)) return;
  std::lock_guard lock(clock_mutex_);
  clock_.add_sample(static_cast<std::int64_t>(best_source), best_agent);
  clock_samples_.fetch_add(1, std::memory_order_relaxed);
}

void CuptiSource::on_callback(void*, int, std::uint32_t, const void*) noexcept {}

void CuptiSource::on_buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                      std::size_t* max_records) noexcept {
  CuptiSource& self = instance();
  std::uint8_t* acquired = self.pool_.acquire();
  if (buffer != nullptr) *buffer = acquired;
  if (size != nullptr) *size = acquired != nullptr ? self.pool_.buffer_bytes() : 0;
  if (max_records != nullptr) *max_records = 0;
}

void CuptiSource::on_buffer_completed(void*, std::uint32_t, std::uint8_t* buffer, std::size_t,
                                      std::size_t valid_size) noexcept {
  instance().deliver(buffer, valid_size);
}

void CuptiSource::deliver(std::uint8_t* buffer, std::size_t valid_size) noexcept {
  if (buffer == nullptr) return;
  ClockMap clock;
  {
    std::lock_guard lock(clock_mutex_);
    clock = clock_;
  }
  std::uint64_t records = 0;
  std::uint64_t skipped = 0;
  std::size_t dropped = 0;
  {
    std::lock_guard lock(deliver_mutex_);
    void* record = nullptr;
    while (valid_size > 0 && lib_.get_next_record(buffer, valid_size, &record) == cupti::kSuccess) {
      const std::optional<ActivityRecord> parsed =
          parse_cupti_record(static_cast<const std::uint8_t*>(record));
      const std::optional<DeviceInterval> interval =
          parsed ? to_interval(*parsed, clock) : std::nullopt;
      if (!interval) {
        ++skipped;
        continue;
      }
      sink_.emit(*parsed, *interval);
      ++records;
    }
    if (lib_.get_num_dropped_records(nullptr, 0, &dropped) != cupti::kSuccess) dropped = 0;
  }
  records_.fetch_add(records, std::memory_order_relaxed);
  skipped_.fetch_add(skipped, std::memory_order_relaxed);
  buffers_completed_.fetch_add(1, std::memory_order_relaxed);
  if (dropped > 0) {
    dropped_.fetch_add(dropped, std::memory_order_relaxed);
    if (Agent* agent = Agent::instance(); agent != nullptr) agent->count_device_drops(dropped);
  }
  pool_.release(buffer);
}

CuptiStats CuptiSource::stats() const noexcept {
  CuptiStats out;
  out.records = records_.load(std::memory_order_relaxed);
  out.dropped = dropped_.load(std::memory_order_relaxed);
  out.skipped = skipped_.load(std::memory_order_relaxed);
  out.buffers_completed = buffers_completed_.load(std::memory_order_relaxed);
  out.buffers_refused = pool_.refused();
  out.clock_samples = clock_samples_.load(std::memory_order_relaxed);
  std::lock_guard lock(clock_mutex_);
  out.clock_resets = clock_resets_before_ + clock_.resets();
  return out;
}

}  // namespace stallwatch::agent
