// SPDX-License-Identifier: MIT
/*
 * A stand-in libcuda.so.1 (the CUDA driver) for the GPU-free tests, with the
 * rules of the real one that the agent must respect:
 *  - nothing but cuInit and cuDriverGetVersion works before cuInit: every
 *    other call returns CUDA_ERROR_NOT_INITIALIZED and initializes nothing;
 *  - a process forked after its parent initialized the driver cannot use it:
 *    cuInit and every call fail there (the child inherits a dead driver);
 *  - devices are numbered in CUDA's order (FASTEST_FIRST by default), which
 *    need not be NVML's: FAKE_CUDA_ORDER="2,0,1" makes CUDA ordinal 0 the
 *    device NVML calls 2. Device i's UUID is 00000000-0000-0000-0000-0000000000ii
 *    (the fake NVML's "GPU-" UUID of its device i).
 * Environment: FAKE_CUDA_DRIVER_VERSION (cuDriverGetVersion, default 13000),
 * FAKE_CUDA_ORDER, else FAKE_NVML_DEVICES devices in NVML's order (default 1).
 * fake_cuda_initialized() tells a test whether the driver was initialized in
 * this process, fake_cuda_inits() by how many calls, and
 * fake_cuda_initialized_elsewhere() whether an ancestor did before fork.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_API __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef struct {
  char bytes[16];
} CUuuid;

enum { kSuccess = 0, kInvalidValue = 1, kNotInitialized = 3, kInvalidDevice = 101 };
enum { kMaxDevices = 16 };

static pid_t initialized_in;
static int inits;

static long long env_int(const char* name, long long fallback) {
  const char* text = getenv(name);
  return text != NULL && text[0] != '\0' ? atoll(text) : fallback;
}

/* CUDA ordinal -> NVML index; returns the device count. */
static int device_order(int order[kMaxDevices]) {
  const char* text = getenv("FAKE_CUDA_ORDER");
  int count = 0;
  if (text != NULL && text[0] != '\0') {
    while (*text != '\0' && count < kMaxDevices) {
      char* end = NULL;
      order[count++] = (int)strtol(text, &end, 10);
      text = *end == ',' ? end + 1 : end;
      if (end == text && *text != '\0') break;
    }
    return count;
  }
  count = (int)env_int("FAKE_NVML_DEVICES", 1);
  if (count > kMaxDevices) count = kMaxDevices;
  for (int i = 0; i < count; ++i)
    order[i] = i;
  return count;
}

static int usable(void) {
  return initialized_in != 0 && initialized_in == getpid();
}

FAKE_API int fake_cuda_initialized(void) {
  return usable();
}

FAKE_API int fake_cuda_initialized_elsewhere(void) {
  return initialized_in != 0 && initialized_in != getpid();
}

FAKE_API int fake_cuda_inits(void) {
  return inits;
}

FAKE_API CUresult cuInit(unsigned int flags) {
  (void)flags;
  if (initialized_in != 0 && initialized_in != getpid()) return kNotInitialized;
  initialized_in = getpid();
  ++inits;
  return kSuccess;
}

FAKE_API CUresult cuDriverGetVersion(int* version) {
  if (version == NULL) return kInvalidValue;
  *version = (int)env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
  return kSuccess;
}

FAKE_API CUresult cuDeviceGetCount(int* count) {
  if (count == NULL) return kInvalidValue;
  if (!usable()) return kNotInitialized;
  int order[kMaxDevices];
  *count = device_order(order);
  return kSuccess;
}

FAKE_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (device == NULL) return kInvalidValue;
  if (!usable()) return kNotInitialized;
  int order[kMaxDevices];
  if (ordinal < 0 || ordinal >= device_order(order)) return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

static CUresult uuid_of(CUuuid* uuid, CUdevice device) {
  if (uuid == NULL) return kInvalidValue;
  if (!usable()) return kNotInitialized;
  int order[kMaxDevices];
  if (device < 0 || device >= device_order(order)) return kInvalidDevice;
  memset(uuid->bytes, 0, sizeof(uuid->bytes));
  uuid->bytes[15] = (char)order[device];
  return kSuccess;
}

FAKE_API CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice device) {
  return uuid_of(uuid, device);
}

FAKE_API CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
  return uuid_of(uuid, device);
}
