// SPDX-License-Identifier: MIT
#include "agent.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <utility>

#include "diagnostics.h"
#include "process_clock.h"
#include "stallwatch/stallwatch.h"

#if !defined(SW_AGENT_VERSION)
#error "SW_AGENT_VERSION must be defined by the build"
#endif

namespace stallwatch::agent {
namespace {

Agent* existing_agent = nullptr;

// How long process exit waits for another thread that holds the lifecycle
// lock (e.g. inside sw_start) before giving up on the final flush.
constexpr auto kExitLockWait = std::chrono::seconds(1);
constexpr std::int64_t kFlushPollNs = 10'000'000;

}  // namespace

Agent* Agent::instance() noexcept {
  static Agent* const agent = [] {
    Agent* created = new (std::nothrow) Agent();
    existing_agent = created;
    return created;
  }();
  return agent;
}

int Agent::start(const AgentConfig* config) noexcept {
  try {
    std::lock_guard lock(lifecycle_);
    if (agent_state.load(std::memory_order_acquire) == AgentState::kRunning) {
      return SW_ERR_ALREADY_STARTED;
    }
    return start_locked(config != nullptr ? *config : AgentConfig::from_environment());
  } catch (const std::bad_alloc&) {
    return SW_ERR_NO_MEMORY;
  } catch (...) {
    return SW_ERR_INTERNAL;
  }
}

bool Agent::ensure_started() noexcept {
  AgentState state = agent_state.load(std::memory_order_acquire);
  if (state == AgentState::kRunning) return true;
  if (state != AgentState::kUninitialized && state != AgentState::kForkedChild) return false;
  try {
    std::lock_guard lock(lifecycle_);
    state = agent_state.load(std::memory_order_acquire);
    if (state == AgentState::kUninitialized || state == AgentState::kForkedChild) {
      const int rc = start_locked(
          state == AgentState::kUninitialized ? AgentConfig::from_environment() : config_);
      if (rc < 0) agent_state.store(AgentState::kStopped, std::memory_order_release);
    }
  } catch (...) {
    return false;
  }
  return agent_state.load(std::memory_order_acquire) == AgentState::kRunning;
}

int Agent::start_locked(AgentConfig config) noexcept {
  if (!config.enable) {
    agent_state.store(AgentState::kDisabled, std::memory_order_release);
    return SW_DISABLED;
  }
  try {
    ProcessClock& clock = ProcessClock::instance();
    install_hooks();
    if (parent_pid_ != 0) config.role = ProcessRole::kWorker;
    SourceInfo source;
    source.job = config.job;
    source.rank = config.rank;
    // Tests simulate several hosts on one machine.
    const char* test_host = std::getenv("STALLWATCH_TEST_ONLY_HOST");
    source.host = test_host != nullptr && test_host[0] != '\0' ? test_host : host_name();
    source.pid = static_cast<std::int32_t>(getpid());
    source.ppid = static_cast<std::int32_t>(parent_pid_ != 0 ? parent_pid_ : getppid());
    source.agent_version = SW_AGENT_VERSION;
    source.start_ns = clock.now_ns();
    source.role = config.role;
    source.device_source = config.device_source;
    const std::string endpoint =
        config.collector.empty() ? default_collector_endpoint() : config.collector;
    device_source_.store(config.device_source, std::memory_order_relaxed);
    auto* sender = new Sender(config, std::move(source), registry_, names_, counters_, wakeup_,
                              flush_, device_source_);
    if (config.proc_io) {
      const auto id = [this](const char* name) {
        const std::uint32_t value = names_.intern(name);
        return static_cast<std::uint16_t>(value <= 0xffffu ? value : 0);
      };
      sender->sample_proc_io(id("proc_io"), id("rchar"), id("read_bytes"),
                             static_cast<std::uint32_t>(getpid()));
    }
    int rc = sender->open(endpoint);
    if (rc == SW_OK) rc = sender->start();
    if (rc != SW_OK) {
      delete sender;
      return rc;
    }
    config_ = std::move(config);
    buffer_events_.store(config_.buffer_events, std::memory_order_relaxed);
    sender_ = sender;
    agent_state.store(AgentState::kRunning, std::memory_order_release);
    return SW_OK;
  } catch (const std::bad_alloc&) {
    return SW_ERR_NO_MEMORY;
  } catch (...) {
    return SW_ERR_INTERNAL;
  }
}

int Agent::stop() noexcept {
  if (auto* hook = stop_hook_.load(std::memory_order_acquire); hook != nullptr) hook();
  try {
    std::lock_guard lock(lifecycle_);
    return stop_locked();
  } catch (...) {
    return SW_ERR_INTERNAL;
  }
}

int Agent::stop_locked() noexcept {
  const AgentState state = agent_state.load(std::memory_order_acquire);
  if (state == AgentState::kDisabled) return SW_DISABLED;
  if (state != AgentState::kRunning) return SW_ERR_NOT_STARTED;
  agent_state.store(AgentState::kStopped, std::memory_order_release);
  sender_->stop();
  delete sender_;
  sender_ = nullptr;
  return SW_OK;
}

int Agent::flush(int timeout_ms) noexcept {
  if (timeout_ms < 0) return SW_ERR_INVALID_ARGUMENT;
  switch (agent_state.load(std::memory_order_acquire)) {
    case AgentState::kRunning:
      break;
    case AgentState::kDisabled:
      return SW_DISABLED;
    case AgentState::kForkedChild:
      return SW_OK;  // nothing recorded in this process yet
    default:
      return SW_ERR_NOT_STARTED;
  }
  const std::uint64_t failures_before = counters_.send_failures.load(std::memory_order_acquire);
  const std::uint32_t target = flush_.requested.fetch_add(1, std::memory_order_acq_rel) + 1;
  wakeup_.notify();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const std::uint32_t completed = flush_.completed.load(std::memory_order_acquire);
    if (static_cast<std::int32_t>(completed - target) >= 0) break;
    // A stop meanwhile completes the request with its final pass; a stopped
    // agent cannot.
    if (agent_state.load(std::memory_order_acquire) != AgentState::kRunning &&
        flush_.completed.load(std::memory_order_acquire) == completed) {
      return SW_DROPPED;
    }
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds::zero()) return SW_DROPPED;
    futex_wait(flush_.completed, completed,
               std::min<std::int64_t>(std::chrono::nanoseconds(left).count(), kFlushPollNs));
  }
  return counters_.send_failures.load(std::memory_order_acquire) == failures_before ? SW_OK
                                                                                    : SW_DROPPED;
}

void Agent::restore_device_source() noexcept {
  try {
    std::lock_guard lock(lifecycle_);
    device_source_.store(config_.device_source, std::memory_order_relaxed);
  } catch (...) {
    device_source_.store(DeviceSource::kNone, std::memory_order_relaxed);
  }
}

ThreadBuffer* Agent::register_current_thread() noexcept {
  if (agent_state.load(std::memory_order_acquire) != AgentState::kRunning) return nullptr;
  return registry_.register_current_thread(buffer_events_.load(std::memory_order_relaxed),
                                           &wakeup_);
}

void Agent::fill_stats(sw_stats& stats) {
  const BufferTotals totals = registry_.totals();
  stats.threads = totals.live_threads;
  stats.events_recorded = totals.recorded;
  stats.events_dropped = totals.dropped + counters_.refused.load(std::memory_order_relaxed) +
                         counters_.lost_in_send.load(std::memory_order_relaxed);
  stats.events_sent = counters_.events_sent.load(std::memory_order_relaxed);
  stats.batches_sent = counters_.batches_sent.load(std::memory_order_relaxed);
  stats.heartbeats_sent = counters_.heartbeats_sent.load(std::memory_order_relaxed);
  stats.send_failures = counters_.send_failures.load(std::memory_order_relaxed);
  stats.queue_depth = totals.queued;
  stats.events_lost_in_send = counters_.lost_in_send.load(std::memory_order_relaxed);
  stats.pid = static_cast<std::int32_t>(getpid());
  stats.ppid = static_cast<std::int32_t>(parent_pid_ != 0 ? parent_pid_ : getppid());
}

void Agent::install_hooks() noexcept {
  if (hooks_installed_) return;
  hooks_installed_ = true;
  std::atexit(&Agent::on_exit);
  std::at_quick_exit(&Agent::on_exit);
  pthread_atfork(&Agent::on_fork_prepare, &Agent::on_fork_parent, &Agent::on_fork_child);
}

void Agent::on_exit() noexcept {
  Agent* agent = existing_agent;
  if (agent == nullptr || agent_state.load(std::memory_order_acquire) != AgentState::kRunning) {
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + kExitLockWait;
  while (!agent->lifecycle_.try_lock()) {
    if (std::chrono::steady_clock::now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  agent->stop_locked();
  agent->lifecycle_.unlock();
}

void Agent::on_fork_prepare() noexcept {
  Agent* agent = existing_agent;
  agent->lifecycle_.lock();
  agent->names_.mutex().lock();
  agent->registry_.mutex().lock();
  ProcessClock::instance().mutex().lock();
  agent->forking_pid_ = getpid();
}

void Agent::on_fork_parent() noexcept {
  Agent* agent = existing_agent;
  ProcessClock::instance().mutex().unlock();
  agent->registry_.mutex().unlock();
  agent->names_.mutex().unlock();
  agent->lifecycle_.unlock();
}

void Agent::on_fork_child() noexcept {
  Agent* agent = existing_agent;
  if (agent->sender_ != nullptr) {
    agent->sender_->abandon();
    try {
      agent->abandoned_.push_back(agent->sender_);
    } catch (...) {
      // Only a leak checker could notice: the sender stays unreferenced.
    }
    agent->sender_ = nullptr;
  }
  agent->registry_.reset_in_child();
  agent->counters_.reset();
  agent->parent_pid_ = agent->forking_pid_;
  if (agent_state.load(std::memory_order_relaxed) == AgentState::kRunning) {
    agent_state.store(AgentState::kForkedChild, std::memory_order_relaxed);
  }
  ProcessClock::instance().mutex().unlock();
  agent->registry_.mutex().unlock();
  agent->names_.mutex().unlock();
  agent->lifecycle_.unlock();
}

}  // namespace stallwatch::agent
