// SPDX-License-Identifier: MIT
#include "cupti_library.h"

#include <dlfcn.h>
#include <link.h>

#include <array>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "cuda_driver.h"

namespace stallwatch::agent {
namespace {

constexpr std::array<const char*, 15> kSonames{
    "libcupti.so.13",   "libcupti.so.12",   "libcupti.so.11.8", "libcupti.so.11.7",
    "libcupti.so.11.6", "libcupti.so.11.5", "libcupti.so.11.4", "libcupti.so.11.3",
    "libcupti.so.11.2", "libcupti.so.11.1", "libcupti.so.11.0", "libcupti.so.10.2",
    "libcupti.so.10.1", "libcupti.so.10.0", "libcupti.so"};
constexpr std::array<const char*, 3> kSubdirectories{"/extras/CUPTI/lib64/", "/lib64/", "/lib/"};

std::string_view file_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

struct Mapped {
  std::string cupti;
  std::string cudart;
};

int find_mapped(dl_phdr_info* info, std::size_t, void* data) {
  const std::string_view name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  const std::string_view file = file_name(name);
  auto* mapped = static_cast<Mapped*>(data);
  if (mapped->cupti.empty() && file.starts_with("libcupti.so")) mapped->cupti = std::string(name);
  if (mapped->cudart.empty() && file.starts_with("libcudart.so")) {
    mapped->cudart = std::string(name);
  }
  return 0;
}

void* open_library(const char* path) {
  return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (out == nullptr && missing.empty()) missing = symbol;
  return out != nullptr;
}

bool resolve_all(void* handle, const std::string& path, CuptiLibrary& lib, std::string& why) {
  std::string missing;
  resolve(handle, "cuptiGetVersion", lib.get_version, missing);
  resolve(handle, "cuptiSubscribe", lib.subscribe, missing);
  resolve(handle, "cuptiUnsubscribe", lib.unsubscribe, missing);
  resolve(handle, "cuptiActivityEnable", lib.activity_enable, missing);
  resolve(handle, "cuptiActivityDisable", lib.activity_disable, missing);
  resolve(handle, "cuptiActivityRegisterCallbacks", lib.register_callbacks, missing);
  resolve(handle, "cuptiActivityFlushAll", lib.flush_all, missing);
  resolve(handle, "cuptiActivityGetNextRecord", lib.get_next_record, missing);
  resolve(handle, "cuptiActivityGetNumDroppedRecords", lib.get_num_dropped_records, missing);
  resolve(handle, "cuptiGetTimestamp", lib.get_timestamp, missing);
  if (!missing.empty()) {
    why = path + " lacks " + missing;
    return false;
  }
  std::string optional;
  resolve(handle, "cuptiGetResultString", lib.get_result_string, optional);
  resolve(handle, "cuptiActivityEnableRuntimeApi", lib.enable_runtime_api, optional);
  resolve(handle, "cuptiActivityEnableDriverApi", lib.enable_driver_api, optional);
  lib.path = path;
  lib.get_version(&lib.api_version);
  return true;
}

std::vector<std::string> candidates() {
  std::vector<std::string> out(kSonames.begin(), kSonames.end());
  std::vector<std::string> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* root = std::getenv(variable);
    if (root != nullptr && root[0] != '\0') roots.emplace_back(root);
  }
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& root : roots) {
    for (const char* subdirectory : kSubdirectories) {
      for (const char* soname : kSonames)
        out.push_back(root + subdirectory + soname);
    }
  }
  return out;
}

std::string cuda_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Opens the candidates in order and keeps the first whose CUDA major matches
// the mapped runtime's (`runtime_major`), else the first the driver supports.
bool search(CuptiLibrary& out, std::string& why) {
  Mapped mapped;
  dl_iterate_phdr(&find_mapped, &mapped);
  if (!mapped.cupti.empty()) {
    if (void* handle = open_library(mapped.cupti.c_str())) {
      if (!resolve_all(handle, mapped.cupti, out, why)) return false;
      out.reason = "already loaded in this process";
      return true;
    }
  }
  const int runtime_major = soname_major(std::string(file_name(mapped.cudart)), "libcudart.so");
  const int driver = CudaDriver::instance().version();
  const int driver_major = driver / 1000;
  std::string passed_over;
  CuptiLibrary fallback;
  void* fallback_handle = nullptr;
  bool have_fallback = false;
  for (const std::string& path : candidates()) {
    void* handle = open_library(path.c_str());
    if (handle == nullptr) continue;
    CuptiLibrary lib;
    std::string unusable;
    if (!resolve_all(handle, path, lib, unusable)) {
      dlclose(handle);
      continue;
    }
    const int major = cupti_cuda_major(lib.api_version);
    if (driver_major > 0 && major > driver_major) {
      if (!passed_over.empty()) passed_over += ", ";
      passed_over += path + " (CUDA " + std::to_string(major) + ")";
      dlclose(handle);
      continue;
    }
    if (runtime_major > 0 && major == runtime_major) {
      out = std::move(lib);
      out.reason = "matches the CUDA " + std::to_string(runtime_major) + " runtime in the process";
      if (!passed_over.empty()) out.reason += "; passed over " + passed_over;
      if (have_fallback) dlclose(fallback_handle);
      return true;
    }
    if (!have_fallback) {
      fallback = std::move(lib);
      fallback_handle = handle;
      have_fallback = true;
      if (runtime_major == 0) break;
    } else {
      dlclose(handle);
    }
  }
  if (!have_fallback) {
    why = passed_over.empty() ? "libcupti.so not found (set STALLWATCH_CUPTI_PATH or CUDA_HOME)"
                              : "every libcupti found is newer than the driver (CUDA " +
                                    cuda_text(driver) + "): " + passed_over;
    return false;
  }
  out = std::move(fallback);
  const int major = cupti_cuda_major(out.api_version);
  if (runtime_major > 0) {
    out.reason = "no CUPTI of the CUDA " + std::to_string(runtime_major) +
                 " runtime in the process was found; CUDA " + std::to_string(major);
  } else if (driver_major > 0) {
    out.reason = "CUDA " + std::to_string(major) + ", the newest found that the driver (CUDA " +
                 cuda_text(driver) + ") supports";
  } else {
    out.reason = "CUDA " + std::to_string(major) + ", the first found";
  }
  if (!passed_over.empty()) out.reason += "; passed over " + passed_over;
  return true;
}

}  // namespace

int cupti_cuda_major(std::uint32_t api_version) noexcept {
  if (api_version >= 100000) return static_cast<int>(api_version / 10000);
  if (api_version >= 19) return 12;
  if (api_version >= 13) return 11;
  if (api_version == 12) return 10;
  if (api_version >= 10) return 9;
  return 0;
}

int soname_major(const std::string& file, const char* stem) noexcept {
  const std::string_view name(file);
  const std::string_view prefix = std::string_view(stem).empty() ? "" : stem;
  if (!name.starts_with(prefix) || name.size() < prefix.size() + 2 || name[prefix.size()] != '.') {
    return 0;
  }
  int major = 0;
  for (std::size_t i = prefix.size() + 1; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i)
    major = major * 10 + (name[i] - '0');
  return major;
}

bool CuptiLibrary::load(CuptiLibrary& out, std::string& why) noexcept {
  try {
    if (const char* explicit_path = std::getenv("STALLWATCH_CUPTI_PATH");
        explicit_path != nullptr && explicit_path[0] != '\0') {
      void* handle = open_library(explicit_path);
      if (handle == nullptr) {
        const char* error = dlerror();
        why = std::string("cannot load STALLWATCH_CUPTI_PATH=") + explicit_path +
              (error != nullptr ? ": " : "") + (error != nullptr ? error : "");
        return false;
      }
      CuptiLibrary lib;
      if (!resolve_all(handle, explicit_path, lib, why)) return false;
      lib.reason = "STALLWATCH_CUPTI_PATH";
      out = std::move(lib);
      return true;
    }
    return search(out, why);
  } catch (...) {
    why = "out of memory while loading libcupti";
    return false;
  }
}

std::string CuptiLibrary::describe(cupti::Result result) const {
  const char* text = nullptr;
  if (get_result_string != nullptr && get_result_string(result, &text) == cupti::kSuccess &&
      text != nullptr) {
    return text;
  }
  return "CUPTI error " + std::to_string(result);
}

}  // namespace stallwatch::agent
