#include "cupti_library.h"

#include <dlfcn.h>
#include <link.h>

#include <array>
#include <cstdlib>
#include <string_view>

namespace stallwatch::agent {
namespace {

constexpr std::array<const char*, 15> kSonames{
    "libcupti.so",      "libcupti.so.13",   "libcupti.so.12",   "libcupti.so.11.8",
    "libcupti.so.11.7", "libcupti.so.11.6", "libcupti.so.11.5", "libcupti.so.11.4",
    "libcupti.so.11.3", "libcupti.so.11.2", "libcupti.so.11.1", "libcupti.so.11.0",
    "libcupti.so.10.2", "libcupti.so.10.1", "libcupti.so.10.0"};
constexpr std::array<const char*, 3> kSubdirectories{"/extras/CUPTI/lib64/", "/lib64/", "/lib/"};

int find_mapped(dl_phdr_info* info, std::size_t, void* data) {
  const std::string_view name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  const std::size_t slash = name.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? name : name.substr(slash + 1);
  if (!file.starts_with("libcupti.so")) return 0;
  *static_cast<std::string*>(data) = std::string(name);
  return 1;
}

void* open_library(const char* path) {
  return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

void* search(std::string& path) {
  std::string mapped;
  dl_iterate_phdr(&find_mapped, &mapped);
  if (!mapped.empty()) {
    if (void* handle = open_library(mapped.c_str())) {
      path = mapped;
      return handle;
    }
  }
  for (const char* soname : kSonames) {
    if (void* handle = open_library(soname)) {
      path = soname;
      return handle;
    }
  }
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* root = std::getenv(variable);
    if (root == nullptr || root[0] == '\0') continue;
    for (const char* subdirectory : kSubdirectories) {
      const std::string candidate = std::string(root) + subdirectory + "libcupti.so";
      if (void* handle = open_library(candidate.c_str())) {
        path = candidate;
        return handle;
      }
    }
  }
  for (const char* subdirectory : kSubdirectories) {
    const std::string candidate = std::string("/usr/local/cuda") + subdirectory + "libcupti.so";
    if (void* handle = open_library(candidate.c_str())) {
      path = candidate;
      return handle;
    }
  }
  return nullptr;
}

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (out == nullptr && missing.empty()) missing = symbol;
  return out != nullptr;
}

}  // namespace

bool CuptiLibrary::load(CuptiLibrary& out, std::string& why) noexcept {
  try {
    std::string path;
    void* handle = nullptr;
    if (const char* explicit_path = std::getenv("STALLWATCH_CUPTI_PATH");
        explicit_path != nullptr && explicit_path[0] != '\0') {
      path = explicit_path;
      handle = open_library(explicit_path);
      if (handle == nullptr) {
        const char* error = dlerror();
        why = "cannot load STALLWATCH_CUPTI_PATH=" + path + (error != nullptr ? ": " : "") +
              (error != nullptr ? error : "");
        return false;
      }
    } else {
      handle = search(path);
      if (handle == nullptr) {
        why = "libcupti.so not found (set STALLWATCH_CUPTI_PATH or CUDA_HOME)";
        return false;
      }
    }
    CuptiLibrary lib;
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
    lib.path = std::move(path);
    out = std::move(lib);
    return true;
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
