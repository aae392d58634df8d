// SPDX-License-Identifier: MIT
#include "activity_sink.h"

#include <cxxabi.h>

#include <cstdlib>

#include "complete_record.h"
#include "stallwatch/event_flags.h"

namespace stallwatch::agent {
namespace {

constexpr std::size_t kMaxNameBytes = 1024;  // NameTable::kMaxLength

}  // namespace

std::string display_name(std::string_view raw) {
  std::string name(raw);
  if (name.starts_with("_Z")) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status == 0 && demangled != nullptr) name = demangled;
    std::free(demangled);
  }
  if (name.size() > kMaxNameBytes) name.resize(kMaxNameBytes);
  return name;
}

sw_name_t ActivitySink::name_id(const ActivityRecord& record) noexcept {
  try {
    if (const auto found = names_.find(record.name); found != names_.end()) return found->second;
    const std::string shown = display_name(record.name);
    const sw_name_t id = sw_intern_n(shown.data(), shown.size());
    if (id != 0 && names_.size() < kMaxCachedNames) names_.emplace(record.name, id);
    return id;
  } catch (...) {
    return 0;
  }
}

int ActivitySink::emit(const ActivityRecord& record, const DeviceInterval& interval) noexcept {
  if (gpu_cat_ == 0) gpu_cat_ = sw_intern("gpu");
  if (runtime_cat_ == 0) runtime_cat_ = sw_intern("cuda_runtime");
  sw_name_t name = name_id(record);
  if (name == 0) name = sw_intern(record.kind == ActivityKind::kKernel ? "kernel" : "device");
  const sw_name_t cat = record.kind == ActivityKind::kLaunch ? runtime_cat_ : gpu_cat_;
  const auto flags =
      static_cast<std::uint8_t>(record.correlation != 0 ? wire::kEventFlagCorrelation : 0);
  const int rc = record_complete_for(interval.lane, cat, name, interval.start_ns, interval.dur_ns,
                                     record.correlation, flags);
  if (flush_every_ != 0 && ++since_flush_ >= flush_every_) {
    since_flush_ = 0;
    sw_flush(kFlushWaitMs);
  }
  return rc;
}

}  // namespace stallwatch::agent
