// SPDX-License-Identifier: MIT
#include "cuda_driver.h"

#include <dlfcn.h>

#include <cstdio>
#include <new>

namespace stallwatch::agent {

CudaDriver& CudaDriver::instance() noexcept {
  alignas(CudaDriver) static unsigned char storage[sizeof(CudaDriver)];
  static CudaDriver* const driver = new (storage) CudaDriver();
  return *driver;
}

void CudaDriver::resolve() noexcept {
  std::lock_guard lock(mutex_);
  if (resolved_) return;
  resolved_ = true;
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) return;
  get_version_ = reinterpret_cast<GetVersionFn>(dlsym(handle, "cuDriverGetVersion"));
  get_count_ = reinterpret_cast<GetCountFn>(dlsym(handle, "cuDeviceGetCount"));
  device_get_ = reinterpret_cast<DeviceGetFn>(dlsym(handle, "cuDeviceGet"));
  get_uuid_ = reinterpret_cast<GetUuidFn>(dlsym(handle, "cuDeviceGetUuid_v2"));
  if (get_uuid_ == nullptr) {
    get_uuid_ = reinterpret_cast<GetUuidFn>(dlsym(handle, "cuDeviceGetUuid"));
  }
}

bool CudaDriver::present() noexcept {
  resolve();
  return get_version_ != nullptr;
}

int CudaDriver::version() noexcept {
  resolve();
  int version = 0;
  if (get_version_ == nullptr || get_version_(&version) != 0) return 0;
  return version;
}

bool CudaDriver::initialized() noexcept {
  return device_count() >= 0;
}

int CudaDriver::device_count() noexcept {
  resolve();
  int count = 0;
  if (get_count_ == nullptr || get_count_(&count) != 0) return -1;
  return count;
}

bool CudaDriver::device_uuid(int ordinal, Uuid& out) noexcept {
  resolve();
  int device = 0;
  if (device_get_ == nullptr || get_uuid_ == nullptr || device_get_(&device, ordinal) != 0) {
    return false;
  }
  return get_uuid_(&out, device) == 0;
}

std::string format_uuid(const CudaDriver::Uuid& uuid, const char* prefix) {
  char text[64];
  std::snprintf(text, sizeof(text),
                "%s%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", prefix,
                uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8],
                uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
  return text;
}

}  // namespace stallwatch::agent
