// SPDX-License-Identifier: MIT
#include "gpu_manager.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <thread>

#include "agent.h"
#include "agent_state.h"
#include "cupti_source.h"
#include "diagnostics.h"
#include "gpu_mode.h"
#include "gpu_source.h"
#include "nvml_source.h"

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kPollPeriodNs = std::int64_t{GpuSource::kPollPeriodMs} * 1'000'000;
constexpr auto kExitLockWait = std::chrono::seconds(1);

DeviceSource wire_source(GpuChoice choice) noexcept {
  switch (choice) {
    case GpuChoice::kCupti:
      return DeviceSource::kCupti;
    case GpuChoice::kCudaEvents:
      return DeviceSource::kCudaEvents;
    case GpuChoice::kNvml:
      return DeviceSource::kNvml;
    case GpuChoice::kNone:
      break;
  }
  return DeviceSource::kNone;
}

// What the collector will show for the winner: "none" means no device signal.
const char* shown_name(GpuChoice choice) noexcept {
  return choice == GpuChoice::kNone ? "compute-proxy" : to_string(choice);
}

void append_reason(std::string& reasons, const char* source, const std::string& why) {
  if (!reasons.empty()) reasons += "; ";
  reasons += source;
  reasons += ": ";
  reasons += why;
}

}  // namespace

GpuManager& GpuManager::instance() noexcept {
  alignas(GpuManager) static unsigned char storage[sizeof(GpuManager)];
  static GpuManager* const manager = new (storage) GpuManager();
  return *manager;
}

int GpuManager::start(const char* mode) noexcept {
  try {
    const char* text = mode;
    if (text == nullptr) text = std::getenv("STALLWATCH_GPU");
    if (text == nullptr || text[0] == '\0') text = "auto";
    const std::optional<GpuMode> parsed = parse_gpu_mode(text);
    if (!parsed) return SW_ERR_BAD_VALUE;
    Agent* agent = Agent::instance();
    if (agent == nullptr) return SW_ERR_NO_MEMORY;
    if (!agent->ensure_started()) {
      return agent_state.load(std::memory_order_acquire) == AgentState::kDisabled
                 ? SW_DISABLED
                 : SW_ERR_NOT_STARTED;
    }

    std::lock_guard lock(mutex_);
    if (running_) return SW_ERR_ALREADY_STARTED;
    install_hooks();
    std::string reasons;
    std::string why;
    GpuChoice winner = GpuChoice::kNone;
    for (const GpuChoice choice : parsed->preferences) {
      if (choice == GpuChoice::kCupti) {
        why.clear();
        CuptiSource::instance().set_wake(&GpuManager::wake_pump);
        if (CuptiSource::instance().start(why)) {
          cupti_running_ = true;
          winner = choice;
          break;
        }
        append_reason(reasons, "cupti", why);
      } else if (choice == GpuChoice::kNvml) {
        why.clear();
        if (NvmlSource::instance().start(why)) {
          nvml_running_ = true;
          winner = choice;
          break;
        }
        append_reason(reasons, "nvml", why);
      } else {
        winner = choice;
        break;
      }
    }
    const bool first_failed = !reasons.empty();
    fell_back_ = first_failed;
    if (parsed->nvml_alongside) {
      why.clear();
      if (NvmlSource::instance().start(why)) {
        nvml_running_ = true;
      } else {
        append_reason(reasons, "nvml", why);
      }
    }

    description_ = shown_name(winner);
    described_cupti_ = winner == GpuChoice::kCupti;
    description_tail_.clear();
    if (nvml_running_ && winner != GpuChoice::kNvml) description_tail_ += " + nvml";
    if (!reasons.empty()) description_tail_ += " (" + reasons + ")";
    if (first_failed) report_notice("GPU activity from %s", description_locked().c_str());

    const DeviceSource declared = wire_source(winner);
    if (declared != DeviceSource::kNone) {
      agent->set_device_source(declared);
    } else {
      agent->restore_device_source();
    }
    device_source_.store(static_cast<std::uint32_t>(declared), std::memory_order_relaxed);
    late_failure_seen_ = false;
    if ((cupti_running_ || nvml_running_) && !start_pump()) {
      if (cupti_running_) CuptiSource::instance().stop();
      if (nvml_running_) NvmlSource::instance().stop();
      cupti_running_ = nvml_running_ = false;
      description_ = "none";
      described_cupti_ = false;
      description_tail_.clear();
      agent->restore_device_source();
      device_source_.store(SW_DEVICE_SOURCE_NONE, std::memory_order_relaxed);
      return SW_ERR_INTERNAL;
    }
    owner_pid_ = getpid();
    running_ = true;
    return SW_OK;
  } catch (const std::bad_alloc&) {
    return SW_ERR_NO_MEMORY;
  } catch (...) {
    return SW_ERR_INTERNAL;
  }
}

int GpuManager::stop() noexcept {
  try {
    std::lock_guard lock(mutex_);
    return stop_locked();
  } catch (...) {
    return SW_ERR_INTERNAL;
  }
}

int GpuManager::stop_locked() noexcept {
  if (!running_) return SW_ERR_NOT_STARTED;
  stop_pump();
  if (cupti_running_) CuptiSource::instance().stop();
  if (nvml_running_) NvmlSource::instance().stop();
  cupti_running_ = nvml_running_ = false;
  running_ = false;
  return SW_OK;
}

void GpuManager::fill_stats(sw_gpu_stats& out) noexcept {
  const CuptiStats cupti = CuptiSource::instance().stats();
  const NvmlSource& nvml = NvmlSource::instance();
  out.device_source = device_source_.load(std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);
    out.running = running_ ? 1 : 0;
    out.fell_back = fell_back_ || (cupti_running_ && CuptiSource::instance().failed_late()) ? 1 : 0;
  }
  out.nvml_devices = nvml.devices();
  out.activity_records = cupti.records;
  out.activity_dropped = cupti.dropped;
  out.activity_skipped = cupti.skipped;
  out.activity_untimed = cupti.untimed;
  out.forced_flushes = cupti.forced_flushes;
  out.delivery_delay_ns = static_cast<std::uint64_t>(cupti.delivery_delay_ns);
  out.delivery_delay_max_ns = static_cast<std::uint64_t>(cupti.delivery_delay_max_ns);
  out.records_per_buffer = cupti.records_per_buffer;
  out.buffers_completed = cupti.buffers_completed;
  out.buffers_refused = cupti.buffers_refused;
  out.clock_samples = cupti.clock_samples;
  out.clock_resets = cupti.clock_resets;
  out.nvml_samples = nvml.samples();
  out.nvml_errors = nvml.errors();
}

std::string GpuManager::description_locked() const {
  if (!described_cupti_) return description_ + description_tail_;
  // The CUPTI source's status changes while it runs (waiting for CUDA, armed).
  const CuptiSource& cupti = CuptiSource::instance();
  if (cupti.failed_late())
    return "compute-proxy" + description_tail_ + " (cupti: " + cupti.status() + ")";
  return description_ + " [" + cupti.status() + "]" + description_tail_;
}

std::size_t GpuManager::describe(char* buffer, std::size_t size) noexcept {
  std::lock_guard lock(mutex_);
  std::string text;
  try {
    text = description_locked();
  } catch (...) {
    text.clear();
  }
  if (buffer != nullptr && size > 0) {
    const std::size_t n = std::min(size - 1, text.size());
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

bool GpuManager::start_pump() noexcept {
  pump_stop_.store(false, std::memory_order_relaxed);
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  const int rc = pthread_create(&pump_thread_, nullptr, &GpuManager::pump_main, this);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != 0) {
    report_problem("cannot start the GPU activity thread: error %d", rc);
    return false;
  }
  pump_started_ = true;
  return true;
}

void GpuManager::stop_pump() noexcept {
  if (!pump_started_) return;
  pump_stop_.store(true, std::memory_order_release);
  pump_wakeup_.notify();
  pthread_join(pump_thread_, nullptr);
  pump_started_ = false;
}

void GpuManager::wake_pump() noexcept {
  instance().pump_wakeup_.notify();
}

void* GpuManager::pump_main(void* self) noexcept {
  pthread_setname_np(pthread_self(), "stallwatch-gpu");
  static_cast<GpuManager*>(self)->pump();
  return nullptr;
}

void GpuManager::pump() noexcept {
  while (!pump_stop_.load(std::memory_order_acquire)) {
    const std::int64_t now = sw_now_ns();
    if (cupti_running_) {
      CuptiSource& cupti = CuptiSource::instance();
      cupti.poll(now);
      // CUPTI could not start once the program initialized CUDA: the events
      // no longer come from it.
      if (cupti.failed_late() && !late_failure_seen_) {
        late_failure_seen_ = true;
        if (Agent* agent = Agent::instance(); agent != nullptr) agent->restore_device_source();
        device_source_.store(SW_DEVICE_SOURCE_NONE, std::memory_order_relaxed);
      }
    }
    if (nvml_running_) NvmlSource::instance().poll(now);
    pump_wakeup_.wait_for(kPollPeriodNs);
  }
}

void GpuManager::install_hooks() noexcept {
  if (hooks_installed_) return;
  hooks_installed_ = true;
  if (Agent* agent = Agent::instance(); agent != nullptr) {
    agent->set_stop_hook(&GpuManager::on_agent_stop);
  }
  std::atexit(&GpuManager::on_exit);
  pthread_atfork(&GpuManager::on_fork_prepare, &GpuManager::on_fork_parent,
                 &GpuManager::on_fork_child);
}

void GpuManager::on_agent_stop() noexcept {
  GpuManager& self = instance();
  if (getpid() == self.owner_pid_) self.stop();
}

void GpuManager::on_exit() noexcept {
  GpuManager& self = instance();
  const auto deadline = std::chrono::steady_clock::now() + kExitLockWait;
  while (!self.mutex_.try_lock()) {
    if (std::chrono::steady_clock::now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (self.running_ && self.owner_pid_ == getpid()) {
    self.stop_pump();
    CuptiSource::instance().abandon();
    NvmlSource::instance().abandon();
    self.cupti_running_ = self.nvml_running_ = false;
    self.running_ = false;
  }
  self.mutex_.unlock();
}

void GpuManager::on_fork_prepare() noexcept {
  instance().mutex_.lock();
  CuptiSource::instance().on_fork_prepare();
}

void GpuManager::on_fork_parent() noexcept {
  CuptiSource::instance().on_fork_parent();
  instance().mutex_.unlock();
}

void GpuManager::on_fork_child() noexcept {
  CuptiSource::instance().on_fork_child();
  GpuManager& self = instance();
  if (self.running_) {
    CuptiSource::instance().abandon();
    NvmlSource::instance().abandon();
  }
  self.running_ = self.cupti_running_ = self.nvml_running_ = false;
  self.pump_started_ = false;
  self.device_source_.store(SW_DEVICE_SOURCE_NONE, std::memory_order_relaxed);
  self.mutex_.unlock();
}

}  // namespace stallwatch::agent
