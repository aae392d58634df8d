/*
 * A stand-in libcupti for the GPU-free tests: the entry points the agent's
 * CUPTI source resolves, plus fake_cupti_* controls the tests call (through
 * dlopen of the same file) to queue synthetic activity records.
 *
 * Records are laid out like CUPTI's (the field prefix of CUpti_ActivityKernel*,
 * CUpti_ActivityMemcpy* and CUpti_ActivityMemset*, in slots as large as the
 * real records), and are delivered when the agent calls cuptiActivityFlushAll:
 * the fake asks for every buffer it needs first, as CUPTI does with several
 * buffers in flight, then hands them back in order. Records that found no
 * buffer (the agent's pool ran dry) are dropped and reported by
 * cuptiActivityGetNumDroppedRecords.
 * The fake's clock (cuptiGetTimestamp, fake_cupti_now) is CLOCK_REALTIME
 * stretched by FAKE_CUPTI_CLOCK_PPM and moved by FAKE_CUPTI_CLOCK_OFFSET_NS.
 *
 * Environment: FAKE_CUPTI_SUBSCRIBE_RESULT (cuptiSubscribe's result, e.g. 39
 * for "another subscriber"), FAKE_CUPTI_ENABLE_RESULT, FAKE_CUPTI_VERSION.
 */

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_API __attribute__((visibility("default")))

typedef int CUptiResult;
typedef void (*BufferRequested)(uint8_t** buffer, size_t* size, size_t* max_records);
typedef void (*BufferCompleted)(void* context, uint32_t stream, uint8_t* buffer, size_t size,
                                size_t valid);
typedef void (*CallbackFunc)(void* userdata, int domain, uint32_t cbid, const void* data);

enum { kSuccess = 0, kInvalidParameter = 1, kMaxLimitReached = 12, kInvalidKind = 21 };
enum { kMemcpy = 1, kMemset = 2, kKernel = 3, kRuntime = 5, kConcurrentKernel = 10 };
enum { kMaxPending = 65536, kMaxBuffers = 1024 };

typedef struct {
  int32_t kind;
  uint8_t cache_config, shared_memory_config;
  uint16_t registers_per_thread;
  int32_t partitioned_requested, partitioned_executed;
  uint64_t start, end, completed;
  uint32_t device_id, context_id, stream_id;
  int32_t grid[3], block[3];
  int32_t static_shared, dynamic_shared;
  uint32_t local_per_thread, local_total, correlation_id;
  int64_t grid_id;
  const char* name;
} KernelRecord;

typedef struct {
  int32_t kind;
  uint8_t copy_kind, src_kind, dst_kind, flags;
  uint64_t bytes, start, end;
  uint32_t device_id, context_id, stream_id, correlation_id;
} MemcpyRecord;

typedef struct {
  int32_t kind;
  uint32_t value;
  uint64_t bytes, start, end;
  uint32_t device_id, context_id, stream_id, correlation_id;
} MemsetRecord;

typedef struct {
  int32_t kind;
  uint32_t device, stream, correlation;
  uint64_t start, end;
  const char* name;
  uint8_t copy_kind;
} Pending;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static BufferRequested requested_fn;
static BufferCompleted completed_fn;
static Pending pending[kMaxPending];
static size_t pending_count;
static size_t dropped;
static int subscribers;
static int enabled[16];
static int flushes;
static int forced_flushes;
static uint32_t next_correlation = 1;
static int64_t clock_base_ns;

static long long env_int(const char* name, long long fallback) {
  const char* text = getenv(name);
  return text != NULL && text[0] != '\0' ? atoll(text) : fallback;
}

static size_t slot_size(int32_t kind) {
  switch (kind) {
    case kConcurrentKernel:
      return 256;
    case kMemcpy:
      return 80;
    case kMemset:
      return 72;
    default:
      return 32;
  }
}

static int64_t realtime_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

FAKE_API uint64_t fake_cupti_now(void) {
  const int64_t real = realtime_ns();
  pthread_mutex_lock(&lock);
  if (clock_base_ns == 0) clock_base_ns = real;
  const int64_t base = clock_base_ns;
  pthread_mutex_unlock(&lock);
  const double ppm = (double)env_int("FAKE_CUPTI_CLOCK_PPM", 0);
  const int64_t stretched = base + (int64_t)((double)(real - base) * (1.0 + ppm * 1e-6));
  return (uint64_t)(stretched + env_int("FAKE_CUPTI_CLOCK_OFFSET_NS", 0));
}

/* Names live as long as the process, like CUPTI's (caller holds `lock`). */
static const char* intern(const char* name) {
  static char* names[256];
  static size_t count;
  if (name == NULL) return NULL;
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(names[i], name) == 0) return names[i];
  }
  if (count == sizeof(names) / sizeof(names[0])) return "fake-too-many-names";
  names[count] = strdup(name);
  return names[count] != NULL ? names[count++] : NULL;
}

static void add(int32_t kind, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                const char* name, uint8_t copy_kind) {
  pthread_mutex_lock(&lock);
  if (pending_count < kMaxPending) {
    Pending* p = &pending[pending_count++];
    p->kind = kind;
    p->device = device;
    p->stream = stream;
    p->start = start;
    p->end = end;
    p->name = intern(name);
    p->copy_kind = copy_kind;
    p->correlation = next_correlation++;
  }
  pthread_mutex_unlock(&lock);
}

FAKE_API void fake_cupti_add_kernel(uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                                    const char* name) {
  add(kConcurrentKernel, device, stream, start, end, name, 0);
}

/* `count` kernels of 1 us, 2 us apart from `start`, queued at once. */
FAKE_API void fake_cupti_add_kernels(size_t count, uint32_t device, uint32_t stream, uint64_t start,
                                     const char* name) {
  pthread_mutex_lock(&lock);
  const char* interned = intern(name);
  for (size_t i = 0; i < count && pending_count < kMaxPending; ++i) {
    Pending* p = &pending[pending_count++];
    p->kind = kConcurrentKernel;
    p->device = device;
    p->stream = stream;
    p->start = start + i * 2000;
    p->end = p->start + 1000;
    p->name = interned;
    p->copy_kind = 0;
    p->correlation = next_correlation++;
  }
  pthread_mutex_unlock(&lock);
}

FAKE_API void fake_cupti_add_memcpy(uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                                    uint8_t copy_kind) {
  add(kMemcpy, device, stream, start, end, NULL, copy_kind);
}

FAKE_API void fake_cupti_add_memset(uint32_t device, uint32_t stream, uint64_t start,
                                    uint64_t end) {
  add(kMemset, device, stream, start, end, NULL, 0);
}

/* A record of a kind the agent does not enable (a runtime API record). */
FAKE_API void fake_cupti_add_other(uint64_t start, uint64_t end) {
  add(kRuntime, 0, 0, start, end, NULL, 0);
}

FAKE_API int fake_cupti_subscribers(void) {
  pthread_mutex_lock(&lock);
  const int n = subscribers;
  pthread_mutex_unlock(&lock);
  return n;
}

FAKE_API int fake_cupti_enabled(int kind) {
  pthread_mutex_lock(&lock);
  const int on = kind >= 0 && kind < 16 ? enabled[kind] : 0;
  pthread_mutex_unlock(&lock);
  return on;
}

FAKE_API int fake_cupti_flushes(int forced_only) {
  pthread_mutex_lock(&lock);
  const int n = forced_only ? forced_flushes : flushes;
  pthread_mutex_unlock(&lock);
  return n;
}

FAKE_API size_t fake_cupti_pending(void) {
  pthread_mutex_lock(&lock);
  const size_t n = pending_count;
  pthread_mutex_unlock(&lock);
  return n;
}

static void write_record(uint8_t* slot, const Pending* p) {
  memset(slot, 0xAB, slot_size(p->kind)); /* fields past the prefix are garbage */
  if (p->kind == kConcurrentKernel) {
    KernelRecord r;
    memset(&r, 0, sizeof(r));
    r.kind = p->kind;
    r.start = p->start;
    r.end = p->end;
    r.completed = p->end;
    r.device_id = p->device;
    r.stream_id = p->stream;
    r.correlation_id = p->correlation;
    r.name = p->name;
    memcpy(slot, &r, sizeof(r));
  } else if (p->kind == kMemcpy) {
    MemcpyRecord r;
    memset(&r, 0, sizeof(r));
    r.kind = p->kind;
    r.copy_kind = p->copy_kind;
    r.start = p->start;
    r.end = p->end;
    r.device_id = p->device;
    r.stream_id = p->stream;
    r.correlation_id = p->correlation;
    memcpy(slot, &r, sizeof(r));
  } else if (p->kind == kMemset) {
    MemsetRecord r;
    memset(&r, 0, sizeof(r));
    r.kind = p->kind;
    r.start = p->start;
    r.end = p->end;
    r.device_id = p->device;
    r.stream_id = p->stream;
    r.correlation_id = p->correlation;
    memcpy(slot, &r, sizeof(r));
  } else {
    memcpy(slot, &p->kind, sizeof(p->kind));
  }
}

FAKE_API CUptiResult cuptiGetVersion(uint32_t* version) {
  if (version == NULL) return kInvalidParameter;
  *version = (uint32_t)env_int("FAKE_CUPTI_VERSION", 130001);
  return kSuccess;
}

FAKE_API CUptiResult cuptiGetResultString(CUptiResult result, const char** text) {
  if (text == NULL) return kInvalidParameter;
  switch (result) {
    case 15:
      *text = "CUPTI_ERROR_NOT_INITIALIZED";
      break;
    case 39:
      *text = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      break;
    default:
      *text = "CUPTI_ERROR_UNKNOWN";
  }
  return kSuccess;
}

FAKE_API CUptiResult cuptiSubscribe(void** subscriber, CallbackFunc callback, void* userdata) {
  (void)callback;
  (void)userdata;
  const CUptiResult forced = (CUptiResult)env_int("FAKE_CUPTI_SUBSCRIBE_RESULT", 0);
  if (forced != kSuccess) return forced;
  pthread_mutex_lock(&lock);
  if (subscribers > 0) {
    pthread_mutex_unlock(&lock);
    return 39;
  }
  ++subscribers;
  pthread_mutex_unlock(&lock);
  *subscriber = &subscribers;
  return kSuccess;
}

FAKE_API CUptiResult cuptiUnsubscribe(void* subscriber) {
  if (subscriber == NULL) return kInvalidParameter;
  pthread_mutex_lock(&lock);
  if (subscribers > 0) --subscribers;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityRegisterCallbacks(BufferRequested requested,
                                                    BufferCompleted completed) {
  if (requested == NULL || completed == NULL) return kInvalidParameter;
  pthread_mutex_lock(&lock);
  requested_fn = requested;
  completed_fn = completed;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityEnable(int kind) {
  const CUptiResult forced = (CUptiResult)env_int("FAKE_CUPTI_ENABLE_RESULT", 0);
  if (forced != kSuccess) return forced;
  if (kind < 0 || kind >= 16) return kInvalidKind;
  pthread_mutex_lock(&lock);
  enabled[kind] = 1;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityDisable(int kind) {
  if (kind < 0 || kind >= 16) return kInvalidKind;
  pthread_mutex_lock(&lock);
  enabled[kind] = 0;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  if (timestamp == NULL) return kInvalidParameter;
  *timestamp = fake_cupti_now();
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  static uint8_t* buffers[kMaxBuffers];
  static size_t sizes[kMaxBuffers];
  static size_t valid[kMaxBuffers];
  pthread_mutex_lock(&lock);
  ++flushes;
  if (flag & 1) ++forced_flushes;
  if (requested_fn == NULL || completed_fn == NULL) {
    pthread_mutex_unlock(&lock);
    return 7; /* CUPTI_ERROR_INVALID_OPERATION */
  }
  size_t used = 0;
  size_t next = 0;
  while (next < pending_count && used < kMaxBuffers) {
    uint8_t* buffer = NULL;
    size_t size = 0;
    size_t max_records = 0;
    requested_fn(&buffer, &size, &max_records);
    if (buffer == NULL) {
      /* No buffer: every record still waiting is lost, and counted. */
      dropped += pending_count - next;
      next = pending_count;
      break;
    }
    size_t offset = 0;
    while (next < pending_count && offset + slot_size(pending[next].kind) <= size) {
      write_record(buffer + offset, &pending[next]);
      offset += slot_size(pending[next].kind);
      ++next;
    }
    buffers[used] = buffer;
    sizes[used] = size;
    valid[used] = offset;
    ++used;
    if (offset == 0) break; /* a buffer too small for one record */
  }
  pending_count = 0;
  const BufferCompleted completed = completed_fn;
  pthread_mutex_unlock(&lock);
  for (size_t i = 0; i < used; ++i)
    completed(NULL, 0, buffers[i], sizes[i], valid[i]);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size, void** record) {
  if (buffer == NULL || record == NULL) return kInvalidParameter;
  uint8_t* next = buffer;
  if (*record != NULL) {
    int32_t kind;
    memcpy(&kind, *record, sizeof(kind));
    next = (uint8_t*)*record + slot_size(kind);
  }
  if (next >= buffer + valid_size) return kMaxLimitReached;
  *record = next;
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityGetNumDroppedRecords(void* context, uint32_t stream,
                                                       size_t* count) {
  (void)context;
  (void)stream;
  if (count == NULL) return kInvalidParameter;
  pthread_mutex_lock(&lock);
  *count = dropped;
  dropped = 0;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}
