// SPDX-License-Identifier: MIT
/*
 * A stand-in libnvidia-ml.so.1 for the GPU-free tests: the NVML entry points
 * the agent's NVML source resolves, with fixed readings per device i (NVML's
 * index, in PCI bus order): utilization 40 + i %, SM clock 1410 MHz, memory
 * used (8 GiB + i) bytes, power 250 W. Device i's UUID is
 * GPU-00000000-0000-0000-0000-0000000000ii (what the fake CUDA driver reports
 * for it, in its own order), and its MIG instance's
 * MIG-00000000-0000-0000-0000-0000000001ii. Environment: FAKE_NVML_DEVICES (default 1),
 * FAKE_NVML_INIT_RESULT (nvmlInit_v2's result), FAKE_NVML_NO_POWER=1 (power
 * readings are "not supported"). fake_nvml_initialized() tells the tests
 * whether nvmlInit without nvmlShutdown is in force.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

typedef int nvmlReturn_t;
typedef struct Device* nvmlDevice_t;
typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;
typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

enum { kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3, kNotFound = 6 };

static int initialized;

static long long env_int(const char* name, long long fallback) {
  const char* text = getenv(name);
  return text != NULL && text[0] != '\0' ? atoll(text) : fallback;
}

static unsigned int device_count(void) {
  return (unsigned int)env_int("FAKE_NVML_DEVICES", 1);
}

static int index_of(nvmlDevice_t device, unsigned int* index) {
  const uintptr_t value = (uintptr_t)device;
  if (!initialized) return kUninitialized;
  if (value == 0 || value > device_count()) return kInvalidArgument;
  *index = (unsigned int)(value - 1);
  return kSuccess;
}

FAKE_API int fake_nvml_initialized(void) {
  return initialized;
}

FAKE_API nvmlReturn_t nvmlInit_v2(void) {
  const nvmlReturn_t forced = (nvmlReturn_t)env_int("FAKE_NVML_INIT_RESULT", 0);
  if (forced != kSuccess) return forced;
  ++initialized;
  return kSuccess;
}

FAKE_API nvmlReturn_t nvmlShutdown(void) {
  if (!initialized) return kUninitialized;
  --initialized;
  return kSuccess;
}

FAKE_API const char* nvmlErrorString(nvmlReturn_t result) {
  return result == kNotSupported ? "Not Supported" : "Unknown Error";
}

FAKE_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!initialized) return kUninitialized;
  *count = device_count();
  return kSuccess;
}

FAKE_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!initialized) return kUninitialized;
  if (index >= device_count()) return kInvalidArgument;
  *device = (nvmlDevice_t)(uintptr_t)(index + 1);
  return kSuccess;
}

static void uuid_of(unsigned int i, int mig, char* out, size_t size) {
  snprintf(out, size, "%s-00000000-0000-0000-0000-0000000%s%02x", mig ? "MIG" : "GPU",
           mig ? "001" : "000", i);
}

FAKE_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) {
  if (!initialized) return kUninitialized;
  for (unsigned int i = 0; i < device_count(); ++i) {
    for (int mig = 0; mig < 2; ++mig) {
      char name[64];
      uuid_of(i, mig, name, sizeof(name));
      if (strcmp(uuid, name) == 0) {
        *device = (nvmlDevice_t)(uintptr_t)(i + 1);
        return kSuccess;
      }
    }
  }
  return kNotFound;
}

FAKE_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int size) {
  unsigned int index = 0;
  const int rc = index_of(device, &index);
  if (rc != kSuccess) return rc;
  uuid_of(index, 0, uuid, size);
  return kSuccess;
}

FAKE_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* out) {
  unsigned int index = 0;
  const int rc = index_of(device, &index);
  if (rc != kSuccess) return rc;
  out->gpu = 40 + index;
  out->memory = 10;
  return kSuccess;
}

FAKE_API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, unsigned int type,
                                             unsigned int* mhz) {
  unsigned int index = 0;
  const int rc = index_of(device, &index);
  if (rc != kSuccess) return rc;
  *mhz = type == 1 ? 1410 : 0;
  return kSuccess;
}

FAKE_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* out) {
  unsigned int index = 0;
  const int rc = index_of(device, &index);
  if (rc != kSuccess) return rc;
  out->total = 80ull << 30;
  out->used = (8ull << 30) + index;
  out->free = out->total - out->used;
  return kSuccess;
}

FAKE_API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* milliwatts) {
  unsigned int index = 0;
  const int rc = index_of(device, &index);
  if (rc != kSuccess) return rc;
  if (env_int("FAKE_NVML_NO_POWER", 0) != 0) return kNotSupported;
  *milliwatts = 250000;
  return kSuccess;
}
