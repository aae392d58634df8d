// SPDX-License-Identifier: MIT
#include "cupti_source.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <new>
#include <optional>
#include <string_view>
#include <thread>

#include "activity_interval.h"
#include "agent.h"
#include "cuda_driver.h"
#include "cupti_record_parser.h"
#include "diagnostics.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {
namespace {

constexpr std::size_t kDefaultBuffers = 128;
constexpr std::size_t kDefaultBufferKib = 64;
constexpr std::size_t kDefaultStopWaitMs = 2000;
constexpr std::size_t kSmallestRecordBytes = 64;
constexpr std::size_t kMinFlushEvery = 64;
constexpr int kClockSampleTries = 3;

// Switches off the records of every call of an enabled API kind but the
// launch calls (`launch_name` non-empty): PyTorch makes several runtime calls
// per launch (cudaGetDevice, cudaStreamIsCapturing, ...), which CUPTI would
// time and write only for the parser to skip them. The kind must be enabled
// first: enabling it turns every call back on. False when this libcupti has
// no per-call switches or refused them all.
bool record_only_launches(cupti::ActivityEnableApiFn enable_api,
                          std::string_view (*launch_name)(std::uint32_t) noexcept) noexcept {
  if (enable_api == nullptr) return false;
  bool switched = false;
  for (std::uint32_t cbid = 1; cbid < cupti::kApiCbidLimit; ++cbid) {
    if (!launch_name(cbid).empty()) continue;
    switched = enable_api(cbid, 0) == cupti::kSuccess || switched;
  }
  return switched;
}

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
  if (rc == cupti::kErrorNotInitialized) {
    return std::string(call) + ": CUPTI could not initialize (no usable CUDA driver or GPU)";
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
    if (forked_) {
      why = "this process was forked from one that traced CUDA with CUPTI (CUDA is unusable here)";
      return false;
    }
    failed_late_.store(false, std::memory_order_relaxed);
    if (!loaded_) {
      if (!CuptiLibrary::load(lib_, why)) return false;
      loaded_ = true;
    }
    if (lib_.api_version < cupti::kMinApiVersion) {
      why = lib_.path + " has CUPTI API version " + std::to_string(lib_.api_version) +
            ", older than CUDA 9.0's";
      return false;
    }
    if (!CudaDriver::instance().present()) {
      why = "no CUDA driver (libcuda.so.1 not found)";
      return false;
    }
    const std::size_t buffers =
        env_size("STALLWATCH_CUPTI_BUFFERS", kDefaultBuffers, 2, kMaxBuffers);
    const std::size_t kib = env_size("STALLWATCH_CUPTI_BUFFER_KB", kDefaultBufferKib, 4, 65536);
    if (!pool_.configure(buffers, kib * 1024)) {
      why = "out of memory for the activity buffers";
      return false;
    }
    pacer_.reset(pool_.buffer_bytes() / kSmallestRecordBytes, sw_now_ns());
    {
      std::lock_guard lock(clock_mutex_);
      clock_resets_before_ += clock_.resets();
      clock_ = ClockMap();
    }
    const Agent* agent = Agent::instance();
    sink_.set_flush_every(
        agent != nullptr ? std::max<std::size_t>(kMinFlushEvery, agent->buffer_events() / 2) : 0);
    const std::string library = lib_.path + ": " + lib_.reason;
    if (!CudaDriver::instance().initialized()) {
      set_status(library + "; waiting for the program to initialize CUDA");
      state_.store(State::kWaiting, std::memory_order_release);
      return true;
    }
    if (!arm(why)) return false;
    set_status(library + launch_note());
    return true;
  } catch (...) {
    why = "out of memory while starting CUPTI";
    return false;
  }
}

bool CuptiSource::arm(std::string& why) noexcept {
  cupti::SubscriberHandle probe = nullptr;
  cupti::Result rc = lib_.subscribe(&probe, &CuptiSource::on_callback, nullptr);
  if (rc != cupti::kSuccess) {
    why = failure(lib_, "cuptiSubscribe", rc);
    return false;
  }
  lib_.unsubscribe(probe);
  sample_clock();
  state_.store(State::kArmed, std::memory_order_release);
  rc =
      lib_.register_callbacks(&CuptiSource::on_buffer_requested, &CuptiSource::on_buffer_completed);
  if (rc != cupti::kSuccess) {
    state_.store(State::kIdle, std::memory_order_release);
    why = failure(lib_, "cuptiActivityRegisterCallbacks", rc);
    return false;
  }
  if (!enable_kinds(why)) {
    state_.store(State::kIdle, std::memory_order_release);
    return false;
  }
  armed_pid_ = getpid();
  return true;
}

bool CuptiSource::enable_kinds(std::string& why) noexcept {
  // Launch records are an extra: without them (refused, or turned off) the
  // device work is still recorded. Driver API launches (Triton's) come with
  // the runtime's when CUPTI has them.
  launches_ = env_size("STALLWATCH_CUPTI_LAUNCHES", 1, 0, 1) == 1 &&
              lib_.activity_enable(cupti::kActivityRuntime) == cupti::kSuccess;
  driver_launches_ = launches_ && lib_.activity_enable(cupti::kActivityDriver) == cupti::kSuccess;
  api_filtered_ = launches_ && env_size("STALLWATCH_CUPTI_API_FILTER", 1, 0, 1) == 1 &&
                  record_only_launches(lib_.enable_runtime_api, launch_call_name);
  if (api_filtered_ && driver_launches_) {
    api_filtered_ = record_only_launches(lib_.enable_driver_api, driver_launch_call_name);
  }
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    const cupti::Result rc = lib_.activity_enable(kKinds[i]);
    if (rc == cupti::kSuccess) continue;
    for (std::size_t j = 0; j < i; ++j)
      lib_.activity_disable(kKinds[j]);
    if (launches_) lib_.activity_disable(cupti::kActivityRuntime);
    if (driver_launches_) lib_.activity_disable(cupti::kActivityDriver);
    launches_ = driver_launches_ = api_filtered_ = false;
    try {
      why = failure(lib_, "cuptiActivityEnable", rc);
    } catch (...) {
      why.clear();
    }
    return false;
  }
  return true;
}

std::string CuptiSource::launch_note() const {
  if (!launches_) return "; no launch records";
  const char* apis = driver_launches_ ? "runtime and driver" : "runtime";
  return std::string("; ") + apis +
         (api_filtered_ ? " launch calls only" : " calls (launch calls kept by the parser)");
}

void CuptiSource::disable_kinds() noexcept {
  for (const cupti::ActivityKind kind : kKinds)
    lib_.activity_disable(kind);
  if (launches_) lib_.activity_disable(cupti::kActivityRuntime);
  if (driver_launches_) lib_.activity_disable(cupti::kActivityDriver);
}

void CuptiSource::poll(std::int64_t now_ns) noexcept {
  const State state = state_.load(std::memory_order_acquire);
  if (state == State::kWaiting) {
    if (!CudaDriver::instance().initialized()) return;
    std::string why;
    try {
      if (arm(why)) {
        set_status(lib_.path + ": " + lib_.reason + launch_note());
        return;
      }
      set_status(why + ", found once the program initialized CUDA");
      report_notice(
          "GPU activity from compute-proxy (cupti: %s, found once the program "
          "initialized CUDA)",
          why.c_str());
    } catch (...) {
    }
    state_.store(State::kIdle, std::memory_order_release);
    failed_late_.store(true, std::memory_order_release);
    return;
  }
  if (state != State::kArmed) return;
  sample_clock();
  lib_.flush_all(0);
  process_completed();
  pacer_.tick(now_ns);
  const std::size_t out = pool_.outstanding();
  if (out == 0) {
    pacer_.note_progress(now_ns);
  } else if (pacer_.force_due(out, pool_.capacity(), now_ns)) {
    forced_flushes_.fetch_add(1, std::memory_order_relaxed);
    lib_.flush_all(cupti::kFlushForced);
    pacer_.note_progress(now_ns);
    process_completed();
  }
}

void CuptiSource::stop() noexcept {
  const State state = state_.load(std::memory_order_acquire);
  if (state != State::kArmed) {
    state_.store(State::kIdle, std::memory_order_release);
    return;
  }
  disable_kinds();
  // Let the device finish what was recorded (no CUDA call: default flushes
  // return each buffer once its records are complete), within a bound.
  const auto wait = std::chrono::milliseconds(
      env_size("STALLWATCH_CUPTI_STOP_WAIT_MS", kDefaultStopWaitMs, 0, 60000));
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    sample_clock();
    lib_.flush_all(0);
    process_completed();
    if (pool_.outstanding() == 0 || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  lib_.flush_all(cupti::kFlushForced);
  process_completed();
  read_dropped();
  state_.store(State::kIdle, std::memory_order_release);
}

void CuptiSource::abandon() noexcept {
  state_.store(State::kIdle, std::memory_order_release);
}

void CuptiSource::on_fork_prepare() noexcept {
  completed_mutex_.lock();
  clock_mutex_.lock();
  status_mutex_.lock();
  pool_.lock_for_fork();
}

void CuptiSource::on_fork_parent() noexcept {
  pool_.unlock_after_fork();
  status_mutex_.unlock();
  clock_mutex_.unlock();
  completed_mutex_.unlock();
}

void CuptiSource::on_fork_child() noexcept {
  pool_.unlock_after_fork();
  status_mutex_.unlock();
  clock_mutex_.unlock();
  completed_mutex_.unlock();
  // Buffers CUPTI held in the parent never come back here; CUPTI's threads
  // are gone. Nothing of it may be called in this process if it was armed.
  if (armed_pid_ != 0) forked_ = true;
  state_.store(State::kIdle, std::memory_order_relaxed);
  completed_count_ = 0;
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
  std::uint8_t* acquired = nullptr;
  if (self.state_.load(std::memory_order_acquire) == State::kArmed) acquired = self.pool_.acquire();
  if (buffer != nullptr) *buffer = acquired;
  if (size != nullptr) *size = acquired != nullptr ? self.pool_.buffer_bytes() : 0;
  if (max_records != nullptr) *max_records = self.pacer_.records_per_buffer();
}

// CUPTI's thread (or the one flushing): queue the buffer and return. Never
// parse, send or wait here: CUPTI delivers the process's other buffers from
// this thread too.
void CuptiSource::on_buffer_completed(void*, std::uint32_t, std::uint8_t* buffer, std::size_t,
                                      std::size_t valid_size) noexcept {
  if (buffer == nullptr) return;
  CuptiSource& self = instance();
  const std::int64_t now = sw_now_ns();
  std::size_t queued = 0;
  {
    std::lock_guard lock(self.completed_mutex_);
    if (self.completed_count_ < self.completed_.size()) {
      self.completed_[self.completed_count_++] = Completed{buffer, valid_size, now};
    }
    queued = self.completed_count_;
  }
  if (queued * 2 >= self.pool_.capacity()) {
    if (void (*wake)() = self.wake_.load(std::memory_order_acquire)) wake();
  }
}

void CuptiSource::process_completed() noexcept {
  std::array<Completed, kMaxBuffers> taken;
  std::size_t count = 0;
  {
    std::lock_guard lock(completed_mutex_);
    count = completed_count_;
    std::copy_n(completed_.begin(), count, taken.begin());
    completed_count_ = 0;
  }
  for (std::size_t i = 0; i < count; ++i)
    deliver(taken[i]);
  if (count > 0) read_dropped();
}

void CuptiSource::deliver(const Completed& completed) noexcept {
  ClockMap clock;
  {
    std::lock_guard lock(clock_mutex_);
    clock = clock_;
  }
  std::uint64_t records = 0;
  std::uint64_t untimed = 0;
  std::uint64_t skipped = 0;
  std::int64_t earliest_end = INT64_MAX;
  void* record = nullptr;
  std::size_t valid_size = completed.valid_size;
  while (valid_size > 0) {
    const cupti::Result rc = lib_.get_next_record(completed.buffer, valid_size, &record);
    if (rc == cupti::kErrorMaxLimitReached) break;
    if (rc != cupti::kSuccess) {
      ++untimed;  // an incomplete or invalid record: nothing after it can be read
      break;
    }
    const auto* raw = static_cast<const std::uint8_t*>(record);
    const std::optional<ActivityRecord> parsed = parse_cupti_record(raw);
    const std::optional<DeviceInterval> interval =
        parsed ? to_interval(*parsed, clock) : std::nullopt;
    if (!interval) {
      if (is_device_work_record(raw)) {
        ++untimed;
      } else {
        ++skipped;
      }
      continue;
    }
    sink_.emit(*parsed, *interval);
    earliest_end = std::min(earliest_end, interval->start_ns + interval->dur_ns);
    ++records;
  }
  pool_.release(completed.buffer);
  records_.fetch_add(records, std::memory_order_relaxed);
  skipped_.fetch_add(skipped, std::memory_order_relaxed);
  buffers_completed_.fetch_add(1, std::memory_order_relaxed);
  if (untimed > 0) {
    untimed_.fetch_add(untimed, std::memory_order_relaxed);
    count_lost(untimed);
  }
  pacer_.on_delivered(records + untimed,
                      records > 0 ? std::max<std::int64_t>(completed.at_ns - earliest_end, 0) : -1,
                      completed.at_ns);
}

void CuptiSource::read_dropped() noexcept {
  std::size_t dropped = 0;
  if (lib_.get_num_dropped_records(nullptr, 0, &dropped) != cupti::kSuccess) return;
  if (dropped > 0) count_lost(dropped);
}

void CuptiSource::count_lost(std::uint64_t records) noexcept {
  dropped_.fetch_add(records, std::memory_order_relaxed);
  if (Agent* agent = Agent::instance(); agent != nullptr) agent->count_device_drops(records);
}

void CuptiSource::set_status(std::string text) {
  std::lock_guard lock(status_mutex_);
  status_ = std::move(text);
}

std::string CuptiSource::status() const {
  std::lock_guard lock(status_mutex_);
  return status_;
}

CuptiStats CuptiSource::stats() const noexcept {
  CuptiStats out;
  out.records = records_.load(std::memory_order_relaxed);
  out.dropped = dropped_.load(std::memory_order_relaxed);
  out.untimed = untimed_.load(std::memory_order_relaxed);
  out.skipped = skipped_.load(std::memory_order_relaxed);
  out.buffers_completed = buffers_completed_.load(std::memory_order_relaxed);
  out.buffers_refused = pool_.refused();
  out.clock_samples = clock_samples_.load(std::memory_order_relaxed);
  out.forced_flushes = forced_flushes_.load(std::memory_order_relaxed);
  out.delivery_delay_ns = pacer_.last_delay_ns();
  out.delivery_delay_max_ns = pacer_.max_delay_ns();
  out.records_per_buffer = pacer_.records_per_buffer();
  std::lock_guard lock(clock_mutex_);
  out.clock_resets = clock_resets_before_ + clock_.resets();
  return out;
}

}  // namespace stallwatch::agent
