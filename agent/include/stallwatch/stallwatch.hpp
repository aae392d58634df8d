// SPDX-License-Identifier: MIT
#pragma once

// stallwatch agent: a thin, header-only C++ wrapper over the C ABI in
// stallwatch.h. It adds ownership and scoping only; every call forwards to
// one sw_* function, so the C header's contract (never throws, never blocks,
// safe from any thread and after fork) holds here too. Nothing here throws.

#include <stallwatch/stallwatch.h>

#include <cstdint>
#include <string_view>
#include <utility>

namespace stallwatch {

// An interned category or event name. Cheap to copy; intern once (the
// constructor takes a lock) and keep it, e.g. in a function-local static.
class Name {
 public:
  constexpr Name() noexcept = default;
  constexpr explicit Name(sw_name_t id) noexcept : id_(id) {}
  explicit Name(const char* str) noexcept : id_(sw_intern(str)) {}
  explicit Name(std::string_view str) noexcept : id_(sw_intern_n(str.data(), str.size())) {}

  constexpr sw_name_t id() const noexcept { return id_; }
  // The interned string, or an empty view for the "no name" id 0.
  std::string_view str() const noexcept {
    const char* s = sw_name_str(id_);
    return s != nullptr ? std::string_view(s) : std::string_view();
  }
  constexpr explicit operator bool() const noexcept { return id_ != 0; }
  friend constexpr bool operator==(Name a, Name b) noexcept { return a.id_ == b.id_; }

 private:
  sw_name_t id_ = 0;
};

// A region open from construction to destruction (or end()), on the
// constructing thread's clock. Move-only; a moved-from Region ends nothing.
class [[nodiscard]] Region {
 public:
  Region(Name cat, Name name) noexcept : token_(sw_region_begin(cat.id(), name.id())) {}
  ~Region() { end(); }
  Region(Region&& other) noexcept : token_(std::exchange(other.token_, 0)) {}
  Region& operator=(Region&& other) noexcept {
    if (this != &other) {
      end();
      token_ = std::exchange(other.token_, 0);
    }
    return *this;
  }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  // Closes the region now; later calls do nothing. Returns the sw_region_end status.
  int end() noexcept { return token_ != 0 ? sw_region_end(std::exchange(token_, 0)) : SW_DISABLED; }
  sw_region_t token() const noexcept { return token_; }

 private:
  sw_region_t token_ = 0;
};

// Owns an sw_config, filled from defaults and the environment. Move-only.
// valid() is false only when the C call ran out of memory; set() then
// returns SW_ERR_INVALID_ARGUMENT.
class Config {
 public:
  Config() noexcept { sw_config_new(&config_); }
  ~Config() { sw_config_free(config_); }
  Config(Config&& other) noexcept : config_(std::exchange(other.config_, nullptr)) {}
  Config& operator=(Config&& other) noexcept {
    if (this != &other) {
      sw_config_free(config_);
      config_ = std::exchange(other.config_, nullptr);
    }
    return *this;
  }
  Config(const Config&) = delete;
  Config& operator=(const Config&) = delete;

  bool valid() const noexcept { return config_ != nullptr; }
  // SW_OK, SW_ERR_UNKNOWN_KEY or SW_ERR_BAD_VALUE (keys: see stallwatch.h).
  int set(const char* key, const char* value) noexcept {
    return sw_config_set(config_, key, value);
  }
  const sw_config* get() const noexcept { return config_; }

 private:
  sw_config* config_ = nullptr;
};

inline int start() noexcept {
  return sw_start(nullptr);
}
inline int start(const Config& config) noexcept {
  return config.valid() ? sw_start(config.get()) : SW_ERR_NO_MEMORY;
}
inline int stop() noexcept {
  return sw_stop();
}
inline int flush(int timeout_ms) noexcept {
  return sw_flush(timeout_ms);
}
inline bool is_enabled() noexcept {
  return sw_is_enabled() != 0;
}
inline const char* strerror(int status) noexcept {
  return sw_strerror(status);
}
inline std::int64_t now_ns() noexcept {
  return sw_now_ns();
}

inline int mark(Name cat, Name name, std::int64_t value) noexcept {
  return sw_mark(cat.id(), name.id(), value);
}
inline int counter(Name cat, Name name, std::int64_t value) noexcept {
  return sw_counter(cat.id(), name.id(), value);
}
inline int counter(Name cat, Name name, double value) noexcept {
  return sw_counter_f64(cat.id(), name.id(), value);
}
inline int complete(Name cat, Name name, std::int64_t start_ns, std::int64_t dur_ns) noexcept {
  return sw_complete(cat.id(), name.id(), start_ns, dur_ns);
}

// The agent's own statistics; all zero except size when the call failed.
inline sw_stats stats() noexcept {
  sw_stats out{};
  out.size = sizeof(sw_stats);
  sw_get_stats(&out);
  return out;
}

// Device activity (see sw_gpu_start): a lane per device stream, device work
// recorded on it, and the GPU activity session.
inline sw_lane_t device_lane(std::uint32_t device, std::uint32_t stream) noexcept {
  return sw_device_lane(device, stream);
}
inline int complete_on(sw_lane_t lane, Name cat, Name name, std::int64_t start_ns,
                       std::int64_t dur_ns) noexcept {
  return sw_complete_on(lane, cat.id(), name.id(), start_ns, dur_ns);
}
inline int counter_on(sw_lane_t lane, Name cat, Name name, double value) noexcept {
  return sw_counter_f64_on(lane, cat.id(), name.id(), value);
}
// `mode`: "auto", "cupti", "cuda-events", "nvml", "none" or a preference
// list; nullptr reads STALLWATCH_GPU.
inline int gpu_start(const char* mode = nullptr) noexcept {
  return sw_gpu_start(mode);
}
inline int gpu_stop() noexcept {
  return sw_gpu_stop();
}
// The GPU sources' statistics; all zero except size when the call failed.
inline sw_gpu_stats gpu_stats() noexcept {
  sw_gpu_stats out{};
  out.size = sizeof(sw_gpu_stats);
  sw_gpu_get_stats(&out);
  return out;
}

}  // namespace stallwatch
