// SPDX-License-Identifier: MIT
// The recording hot path of the C ABI. In the running state a call is: one
// relaxed load of the process state word, the calling thread's buffer
// pointer (initial-exec TLS), one clock read and one 32-byte store into a
// lock-free ring. Everything else (lazy start, first event on a thread,
// stopped or disabled agent) leaves through a cold function.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdint>

#include "agent.h"
#include "agent_state.h"
#include "buffer_registry.h"
#include "complete_record.h"
#include "process_clock.h"
#include "record.h"
#include "stallwatch/device_lane.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {
namespace {

// Low bit of the region id half of a token whose BEGIN was not recorded:
// ending it counts one more drop instead of sending an unmatched END.
constexpr std::uint32_t kDroppedRegionBit = 0x80000000u;

inline AgentState current_state() noexcept {
  return agent_state.load(std::memory_order_relaxed);
}

inline bool disabled() noexcept {
  return current_state() == AgentState::kDisabled;
}

// Ids past what a record holds can only be invalid: they become "no name".
inline std::uint16_t name_index(sw_name_t id) noexcept {
  return id > 0xffffu ? std::uint16_t{0} : static_cast<std::uint16_t>(id);
}

inline int status(bool recorded) noexcept {
  return recorded ? SW_OK : SW_DROPPED;
}

// The calling thread's buffer once the agent runs (starting it lazily and
// registering the thread as needed); null when disabled (`*off` = true) or
// when the call must be refused (counted here).
[[gnu::cold]] ThreadBuffer* buffer_slow(bool* off) noexcept {
  *off = false;
  Agent* agent = Agent::instance();
  if (agent == nullptr) return nullptr;
  if (!agent->ensure_started()) {
    *off = disabled();
    if (!*off) agent->count_refused();
    return nullptr;
  }
  ThreadBuffer* buffer = current_thread_buffer;
  if (buffer == nullptr) buffer = agent->register_current_thread();
  if (buffer == nullptr) agent->count_refused();
  return buffer;
}

// `lane` 0 records on the calling thread's own id.
[[gnu::cold, gnu::noinline]] int record_slow(RecordKind kind, sw_name_t cat, sw_name_t name,
                                             std::int64_t ts, std::int64_t value,
                                             std::uint8_t flags, std::uint32_t lane = 0) noexcept {
  bool off = false;
  ThreadBuffer* buffer = buffer_slow(&off);
  if (buffer == nullptr) return off ? SW_DISABLED : SW_DROPPED;
  if (kind != RecordKind::kComplete) ts = read_ticks();
  return status(buffer->record(kind, name_index(cat), name_index(name), ts, value, 0,
                               lane != 0 ? lane : buffer->tid(), flags));
}

// Region ids of lane regions: process-wide, since any thread may open or
// close a region on a lane; 1..0x7fffffff like a thread's.
std::atomic<std::uint32_t> lane_region_counter{0};

std::uint32_t next_lane_region_id() noexcept {
  std::uint32_t id =
      (lane_region_counter.fetch_add(1, std::memory_order_relaxed) + 1) & 0x7fffffffu;
  return id != 0 ? id : 1;
}

// A BEGIN or END on a device lane at a caller-given time (ns), from the
// calling thread's buffer.
int record_on_lane(RecordKind kind, std::uint32_t lane, sw_name_t cat, sw_name_t name,
                   std::int64_t ts_ns, std::uint32_t region_id) noexcept {
  ThreadBuffer* buffer = current_thread_buffer;
  if (current_state() != AgentState::kRunning || buffer == nullptr) [[unlikely]] {
    bool off = false;
    buffer = buffer_slow(&off);
    if (buffer == nullptr) return off ? SW_DISABLED : SW_DROPPED;
  }
  return status(buffer->record(kind, name_index(cat), name_index(name), ts_ns, 0, region_id, lane,
                               0, kRecordTimeIsNs));
}

[[gnu::cold, gnu::noinline]] sw_region_t region_begin_slow(sw_name_t cat, sw_name_t name,
                                                           std::int64_t value) noexcept {
  bool off = false;
  ThreadBuffer* buffer = buffer_slow(&off);
  if (buffer == nullptr) {
    if (off) return 0;
    return static_cast<sw_region_t>(static_cast<std::uint32_t>(gettid())) << 32 |
           kDroppedRegionBit | 1u;
  }
  const std::uint32_t id = buffer->next_region_id();
  const sw_region_t token = static_cast<sw_region_t>(buffer->tid()) << 32 | id;
  const bool recorded = buffer->record(RecordKind::kBegin, name_index(cat), name_index(name),
                                       read_ticks(), value, id, buffer->tid(), 0);
  return recorded ? token : token | kDroppedRegionBit;
}

inline sw_region_t region_begin(sw_name_t cat, sw_name_t name, std::int64_t value) noexcept {
  const AgentState state = current_state();
  if (state == AgentState::kRunning) [[likely]] {
    if (ThreadBuffer* buffer = current_thread_buffer; buffer != nullptr) [[likely]] {
      const std::uint32_t id = buffer->next_region_id();
      const sw_region_t token = static_cast<sw_region_t>(buffer->tid()) << 32 | id;
      const bool recorded = buffer->record(RecordKind::kBegin, name_index(cat), name_index(name),
                                           read_ticks(), value, id, buffer->tid(), 0);
      return recorded ? token : token | kDroppedRegionBit;
    }
  } else if (state == AgentState::kDisabled) {
    return 0;
  }
  return region_begin_slow(cat, name, value);
}

[[gnu::cold, gnu::noinline]] int region_end_slow(sw_region_t region, std::int64_t value) noexcept {
  bool off = false;
  ThreadBuffer* buffer = buffer_slow(&off);
  if (buffer == nullptr) return off ? SW_DISABLED : SW_DROPPED;
  const auto id = static_cast<std::uint32_t>(region);
  if ((id & kDroppedRegionBit) != 0) {
    buffer->count_drop();
    return SW_DROPPED;
  }
  return status(buffer->record(RecordKind::kEnd, 0, 0, read_ticks(), value, id,
                               static_cast<std::uint32_t>(region >> 32), 0));
}

inline int region_end(sw_region_t region, std::int64_t value) noexcept {
  if (region == 0) return SW_DISABLED;
  const AgentState state = current_state();
  if (state == AgentState::kRunning) [[likely]] {
    if (ThreadBuffer* buffer = current_thread_buffer; buffer != nullptr) [[likely]] {
      const auto id = static_cast<std::uint32_t>(region);
      if ((id & kDroppedRegionBit) != 0) [[unlikely]] {
        buffer->count_drop();
        return SW_DROPPED;
      }
      return status(buffer->record(RecordKind::kEnd, 0, 0, read_ticks(), value, id,
                                   static_cast<std::uint32_t>(region >> 32), 0));
    }
  } else if (state == AgentState::kDisabled) {
    return SW_DISABLED;
  }
  return region_end_slow(region, value);
}

// A call from `stamp` (read_call_stamp) to now, on `buffer`'s thread. With
// call_tsc_mult set, the clock is read once, at the end, and the start is the
// end less the TSC-timed duration.
[[gnu::always_inline]] inline int record_call(ThreadBuffer* buffer, sw_name_t cat, sw_name_t name,
                                              std::int64_t stamp, std::int64_t value,
                                              sw_name_t subject) noexcept {
  std::int64_t start = stamp;
  std::int64_t end = 0;
#if defined(__x86_64__)
  if (const std::uint64_t mult = call_tsc_mult.load(std::memory_order_relaxed); mult != 0) {
    const auto elapsed =
        std::max<std::int64_t>(static_cast<std::int64_t>(__builtin_ia32_rdtsc()) - stamp, 0);
    end = read_ticks();
    start = end - static_cast<std::int64_t>(static_cast<Int128>(elapsed) * mult >> 32);
  } else
#endif
  {
    end = std::max(read_ticks(), start);
  }
  const auto c = name_index(cat);
  const auto n = name_index(name);
  const auto tid = buffer->tid();
  if (end - start <= std::int64_t{0xffffffff}) [[likely]] {
    return status(buffer->record(RecordKind::kCall, c, n, start, value,
                                 static_cast<std::uint32_t>(end - start), tid, 0,
                                 name_index(subject)));
  }
  const std::uint32_t id = buffer->next_region_id();
  if (!buffer->record(RecordKind::kBegin, c, n, start, static_cast<std::int64_t>(subject), id, tid,
                      0)) {
    return SW_DROPPED;
  }
  return status(buffer->record(RecordKind::kEnd, 0, 0, end, value, id, tid, 0));
}

// The slow paths of sw_call_start/sw_call_end (starting the agent, a
// thread's first event) keep errno: an interposer calls them between a C
// library call and its caller's look at errno.
[[gnu::cold, gnu::noinline]] std::int64_t call_start_slow() noexcept {
  const int error = errno;
  bool off = false;
  const bool ready = buffer_slow(&off) != nullptr;
  errno = error;
  return ready ? std::max<std::int64_t>(read_call_stamp(), 1) : 0;
}

[[gnu::cold, gnu::noinline]] int call_end_slow(sw_name_t cat, sw_name_t name, std::int64_t start,
                                               std::int64_t value, sw_name_t subject) noexcept {
  const int error = errno;
  bool off = false;
  ThreadBuffer* buffer = buffer_slow(&off);
  errno = error;
  if (buffer == nullptr) return off ? SW_DISABLED : SW_DROPPED;
  const int status = record_call(buffer, cat, name, start, value, subject);
  errno = error;
  return status;
}

inline int record_now(RecordKind kind, sw_name_t cat, sw_name_t name, std::int64_t value,
                      std::uint8_t flags, std::uint32_t lane = 0) noexcept {
  const AgentState state = current_state();
  if (state == AgentState::kRunning) [[likely]] {
    if (ThreadBuffer* buffer = current_thread_buffer; buffer != nullptr) [[likely]] {
      return status(buffer->record(kind, name_index(cat), name_index(name), read_ticks(), value, 0,
                                   lane != 0 ? lane : buffer->tid(), flags));
    }
  } else if (state == AgentState::kDisabled) {
    return SW_DISABLED;
  }
  return record_slow(kind, cat, name, 0, value, flags, lane);
}

}  // namespace

int record_complete_for(std::uint32_t tid, sw_name_t cat, sw_name_t name, std::int64_t start_ns,
                        std::int64_t dur_ns, std::uint32_t region_id, std::uint8_t flags) noexcept {
  if (dur_ns < 0) return SW_ERR_INVALID_ARGUMENT;
  ThreadBuffer* buffer = current_thread_buffer;
  if (current_state() != AgentState::kRunning || buffer == nullptr) [[unlikely]] {
    bool off = false;
    buffer = buffer_slow(&off);
    if (buffer == nullptr) return off ? SW_DISABLED : SW_DROPPED;
  }
  return status(buffer->record(RecordKind::kComplete, name_index(cat), name_index(name), start_ns,
                               dur_ns, region_id, tid, flags));
}

}  // namespace stallwatch::agent

using stallwatch::agent::AgentState;
using stallwatch::agent::current_thread_buffer;
using stallwatch::agent::kDroppedRegionBit;
using stallwatch::agent::name_index;
using stallwatch::agent::read_call_stamp;
using stallwatch::agent::read_ticks;
using stallwatch::agent::RecordKind;
using stallwatch::agent::ThreadBuffer;

extern "C" {

SW_API sw_region_t sw_region_begin(sw_name_t cat, sw_name_t name) noexcept {
  return stallwatch::agent::region_begin(cat, name, 0);
}

SW_API sw_region_t sw_region_begin_value(sw_name_t cat, sw_name_t name, int64_t value) noexcept {
  return stallwatch::agent::region_begin(cat, name, value);
}

SW_API int sw_region_end(sw_region_t region) noexcept {
  return stallwatch::agent::region_end(region, 0);
}

SW_API int sw_region_end_value(sw_region_t region, int64_t value) noexcept {
  return stallwatch::agent::region_end(region, value);
}

SW_API int sw_complete(sw_name_t cat, sw_name_t name, int64_t start_ns, int64_t dur_ns) noexcept {
  const AgentState state = stallwatch::agent::current_state();
  if (state == AgentState::kRunning) [[likely]] {
    if (ThreadBuffer* buffer = current_thread_buffer; buffer != nullptr) [[likely]] {
      if (dur_ns < 0) [[unlikely]]
        return SW_ERR_INVALID_ARGUMENT;
      return stallwatch::agent::status(buffer->record(RecordKind::kComplete, name_index(cat),
                                                      name_index(name), start_ns, dur_ns, 0,
                                                      buffer->tid(), 0));
    }
  } else if (state == AgentState::kDisabled) {
    return SW_DISABLED;
  }
  if (dur_ns < 0) return SW_ERR_INVALID_ARGUMENT;
  return stallwatch::agent::record_slow(RecordKind::kComplete, cat, name, start_ns, dur_ns, 0);
}

SW_API int sw_complete_on(sw_lane_t lane, sw_name_t cat, sw_name_t name, int64_t start_ns,
                          int64_t dur_ns) noexcept {
  if (!stallwatch::wire::is_device_lane(lane) || dur_ns < 0) [[unlikely]]
    return SW_ERR_INVALID_ARGUMENT;
  const AgentState state = stallwatch::agent::current_state();
  if (state == AgentState::kRunning) [[likely]] {
    if (ThreadBuffer* buffer = current_thread_buffer; buffer != nullptr) [[likely]] {
      return stallwatch::agent::status(buffer->record(
          RecordKind::kComplete, name_index(cat), name_index(name), start_ns, dur_ns, 0, lane, 0));
    }
  } else if (state == AgentState::kDisabled) {
    return SW_DISABLED;
  }
  return stallwatch::agent::record_slow(RecordKind::kComplete, cat, name, start_ns, dur_ns, 0,
                                        lane);
}

SW_API int sw_counter_f64_on(sw_lane_t lane, sw_name_t cat, sw_name_t name, double value) noexcept {
  if (!stallwatch::wire::is_device_lane(lane)) return SW_ERR_INVALID_ARGUMENT;
  return stallwatch::agent::record_now(RecordKind::kCounter, cat, name,
                                       std::bit_cast<std::int64_t>(value),
                                       stallwatch::agent::kRecordValueIsDouble, lane);
}

SW_API sw_region_t sw_region_begin_on(sw_lane_t lane, sw_name_t cat, sw_name_t name,
                                      int64_t start_ns) noexcept {
  if (!stallwatch::wire::is_device_lane(lane)) return 0;
  const std::uint32_t id = stallwatch::agent::next_lane_region_id();
  const sw_region_t token = static_cast<sw_region_t>(lane) << 32 | id;
  const int rc =
      stallwatch::agent::record_on_lane(RecordKind::kBegin, lane, cat, name, start_ns, id);
  if (rc == SW_DISABLED) return 0;
  return rc == SW_OK ? token : token | kDroppedRegionBit;
}

SW_API int sw_region_end_on(sw_region_t region, int64_t end_ns) noexcept {
  if (region == 0) return SW_DISABLED;
  const auto lane = static_cast<std::uint32_t>(region >> 32);
  const auto id = static_cast<std::uint32_t>(region);
  if (!stallwatch::wire::is_device_lane(lane)) return SW_ERR_INVALID_ARGUMENT;
  if ((id & kDroppedRegionBit) != 0) {
    if (ThreadBuffer* buffer = current_thread_buffer; buffer != nullptr) buffer->count_drop();
    return SW_DROPPED;
  }
  return stallwatch::agent::record_on_lane(RecordKind::kEnd, lane, 0, 0, end_ns, id);
}

SW_API sw_lane_t sw_device_lane(uint32_t device, uint32_t stream) noexcept {
  return stallwatch::wire::device_lane(device, stream);
}

// Hot: grouped with the other hot functions (.text.hot), so that a traced
// call, after the system call emptied the TLB, touches one page of code.
[[gnu::hot]] SW_API int64_t sw_call_start(void) noexcept {
  if (stallwatch::agent::current_state() == AgentState::kRunning &&
      current_thread_buffer != nullptr) [[likely]] {
    return std::max<int64_t>(read_call_stamp(), 1);
  }
  if (stallwatch::agent::disabled()) return 0;
  return stallwatch::agent::call_start_slow();
}

[[gnu::hot]] SW_API int sw_call_end(sw_name_t cat, sw_name_t name, int64_t start, int64_t value,
                                    sw_name_t subject) noexcept {
  if (start == 0) return SW_DISABLED;
  const AgentState state = stallwatch::agent::current_state();
  if (state == AgentState::kRunning) [[likely]] {
    if (ThreadBuffer* buffer = current_thread_buffer; buffer != nullptr) [[likely]] {
      return stallwatch::agent::record_call(buffer, cat, name, start, value, subject);
    }
  } else if (state == AgentState::kDisabled) {
    return SW_DISABLED;
  }
  return stallwatch::agent::call_end_slow(cat, name, start, value, subject);
}

SW_API int sw_mark(sw_name_t cat, sw_name_t name, int64_t value) noexcept {
  return stallwatch::agent::record_now(RecordKind::kMark, cat, name, value, 0);
}

SW_API int sw_counter(sw_name_t cat, sw_name_t name, int64_t value) noexcept {
  return stallwatch::agent::record_now(RecordKind::kCounter, cat, name, value, 0);
}

SW_API int sw_counter_f64(sw_name_t cat, sw_name_t name, double value) noexcept {
  return stallwatch::agent::record_now(RecordKind::kCounter, cat, name,
                                       std::bit_cast<std::int64_t>(value),
                                       stallwatch::agent::kRecordValueIsDouble);
}

}  // extern "C"
