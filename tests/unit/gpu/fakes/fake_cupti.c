// SPDX-License-Identifier: MIT
/*
 * A stand-in libcupti for the GPU-free tests: the entry points the agent's
 * CUPTI source resolves, plus fake_cupti_* controls the tests call (through
 * dlopen of the same file, or ctypes) to launch synthetic device work. It
 * keeps the rules of the real CUPTI that the agent has to live with:
 *
 *  - records go into a client buffer when the work is launched (the buffer is
 *    requested then, honouring the client's max_records), and are complete
 *    only once the "device" ran them: a record whose end lies in the future
 *    of the fake's clock is incomplete until the clock gets there;
 *  - CUPTI's own worker thread (one per process, started with the buffer
 *    callbacks) hands back, every FAKE_CUPTI_WORKER_MS (default 10), only the
 *    buffers that are full and whose records are all complete; a default
 *    cuptiActivityFlushAll(0) also returns partly filled ones, but never one
 *    with an incomplete record; a forced flush returns everything, and the
 *    incomplete records in it carry zero timestamps (their time is lost);
 *  - a kernel launched through the runtime (fake_cupti_launch_kernel[s])
 *    also makes a RUNTIME record when that kind is enabled: one per launch
 *    call, cudaLaunchKernel's cbid, the calling thread's id, the call's
 *    start and end, and the correlation id its kernel record carries too;
 *    one launched through the driver (fake_cupti_launch_kernel[s]_driver,
 *    how Triton launches) makes a DRIVER record instead, with
 *    cuLaunchKernel's or cuLaunchKernelEx's cbid, when that kind is enabled;
 *  - other API calls (fake_cupti_api_call: cudaGetDevice and the like, of
 *    which PyTorch makes several per launch) make records of their kind too;
 *    cuptiActivityEnableRuntimeApi / cuptiActivityEnableDriverApi switch single
 *    calls off and on (ids 1..FAKE_CUPTI_RUNTIME_CBIDS-1, default 523, and
 *    1..FAKE_CUPTI_DRIVER_CBIDS-1, default 807, else
 *    CUPTI_ERROR_INVALID_PARAMETER), and enabling the kind turns every call
 *    of it back on, as the real one does (FAKE_CUPTI_API_SWITCH_RESULT forces
 *    their result, e.g. 27, CUPTI_ERROR_NOT_SUPPORTED);
 *  - records that find no buffer (the client refused one) are dropped and
 *    counted for cuptiActivityGetNumDroppedRecords; records "without timing"
 *    (lack of device memory) have zero timestamps;
 *  - one subscriber at a time: a second cuptiSubscribe fails with
 *    CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, which is what a profiler
 *    starting after another client sees (fake_cupti_profiler_start plays
 *    torch.profiler's Kineto: subscribe, register its own buffer callbacks,
 *    enable the kinds; CPU-only when its subscribe fails);
 *  - cuptiActivityRegisterTimestampCallback replaces CUPTI's clock for both
 *    record timestamps and cuptiGetTimestamp (Kineto registers a TSC one:
 *    fake_cupti_use_tsc_clock);
 *  - CUPTI initializes the CUDA driver (the fake libcuda.so.1 it links) in
 *    every call but cuptiGetVersion and cuptiGetResultString, so a client that
 *    calls it before the program initialized CUDA breaks CUDA in children the
 *    program forks later.
 * The default clock (fake_cupti_now) is CLOCK_REALTIME stretched by
 * FAKE_CUPTI_CLOCK_PPM and moved by FAKE_CUPTI_CLOCK_OFFSET_NS.
 *
 * Environment: FAKE_CUPTI_SUBSCRIBE_RESULT (cuptiSubscribe's result, e.g. 39
 * for "another subscriber"), FAKE_CUPTI_ENABLE_RESULT, FAKE_CUPTI_VERSION
 * (default FAKE_CUPTI_DEFAULT_VERSION, a compile definition), and
 * FAKE_CUPTI_WORKER_MS.
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef FAKE_CUPTI_DEFAULT_VERSION
#define FAKE_CUPTI_DEFAULT_VERSION 130001
#endif

#define FAKE_API __attribute__((visibility("default")))

typedef int CUptiResult;
typedef void (*BufferRequested)(uint8_t** buffer, size_t* size, size_t* max_records);
typedef void (*BufferCompleted)(void* context, uint32_t stream, uint8_t* buffer, size_t size,
                                size_t valid);
typedef void (*CallbackFunc)(void* userdata, int domain, uint32_t cbid, const void* data);
typedef uint64_t (*TimestampFunc)(void);

int cuInit(unsigned int flags); /* the fake CUDA driver */

enum {
  kSuccess = 0,
  kInvalidParameter = 1,
  kInvalidOperation = 7,
  kMaxLimitReached = 12,
  kNotInitialized = 15,
  kInvalidKind = 21,
  kMultipleSubscribers = 39
};
enum { kMemcpy = 1, kMemset = 2, kKernel = 3, kDriver = 4, kRuntime = 5, kConcurrentKernel = 10 };
enum { kMaxBuffers = 1024, kMaxDelivery = 64 };

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
  uint32_t cbid;
  uint64_t start, end;
  uint32_t process_id, thread_id, correlation_id, return_value;
} ApiRecord;

enum { kCbidLaunchKernel = 211 };                                /* runtime API */
enum { kCbidCuLaunchKernel = 307, kCbidCuLaunchKernelEx = 652 }; /* driver API */

/* One launched piece of work (or, kind kRuntime or kDriver with a cbid, the
 * API call that launched it): complete once CLOCK_REALTIME reaches done_at. */
typedef struct {
  int32_t kind;
  uint32_t device, stream, correlation;
  uint32_t cbid, thread; /* kRuntime and kDriver records of a launch */
  uint64_t start, end;
  int64_t done_at;
  const char* name;
  uint8_t copy_kind;
  uint8_t untimed;
} Work;

/* A client buffer CUPTI is filling. */
typedef struct {
  uint8_t* buffer;
  size_t size;
  size_t max_records;
  size_t bytes;
  size_t count;
  size_t capacity;
  Work* work;
  int closed; /* full: no more records go in */
} Inflight;

typedef struct {
  BufferCompleted completed;
  uint8_t* buffer;
  size_t size;
  size_t valid;
} Delivery;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static BufferRequested requested_fn;
static BufferCompleted completed_fn;
static TimestampFunc timestamp_fn;
static Inflight inflight[kMaxBuffers];
static size_t inflight_count;
static size_t dropped;
static int subscribers;
static int enabled[16];
enum { kMaxCbid = 1024 };
static uint8_t runtime_off[kMaxCbid]; /* calls switched off while the kind is on */
static uint8_t driver_off[kMaxCbid];
static int api_switches; /* successful per-call switches, for the tests */
static int flushes;
static int forced_flushes;
static uint32_t next_correlation = 1;
static int64_t clock_base_ns;
static size_t last_max_records;
static int worker_started;
static pthread_t worker_thread;
static int64_t worker_callback_max_ns;
static int worker_deliveries;
static void (*next_record_hook)(void);

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
    case kRuntime:
    case kDriver:
      return sizeof(ApiRecord);
    default:
      return 32;
  }
}

static int64_t realtime_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static uint64_t default_clock(void) {
  const int64_t real = realtime_ns();
  pthread_mutex_lock(&lock);
  if (clock_base_ns == 0) clock_base_ns = real;
  const int64_t base = clock_base_ns;
  pthread_mutex_unlock(&lock);
  const double ppm = (double)env_int("FAKE_CUPTI_CLOCK_PPM", 0);
  const int64_t stretched = base + (int64_t)((double)(real - base) * (1.0 + ppm * 1e-6));
  return (uint64_t)(stretched + env_int("FAKE_CUPTI_CLOCK_OFFSET_NS", 0));
}

/* CUPTI's clock: the registered timestamp callback, else the default one. */
FAKE_API uint64_t fake_cupti_now(void) {
  pthread_mutex_lock(&lock);
  const TimestampFunc fn = timestamp_fn;
  pthread_mutex_unlock(&lock);
  return fn != NULL ? fn() : default_clock();
}

/* CUPTI initializes the driver lazily, in its first real call. */
static int init_driver(void) {
  return cuInit(0) == 0;
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

/* Caller holds `lock`: puts `w` in the buffer being filled, asking the client
 * for a new one when there is none or it is full. */
static void place(const Work* w) {
  const int other_client = w->kind == kRuntime && w->cbid == 0;
  if (!other_client && !(w->kind >= 0 && w->kind < 16 && enabled[w->kind])) return;
  if (w->cbid < kMaxCbid && ((w->kind == kRuntime && runtime_off[w->cbid]) ||
                             (w->kind == kDriver && driver_off[w->cbid]))) {
    return;
  }
  if (requested_fn == NULL) return;
  const size_t slot = slot_size(w->kind);
  Inflight* current = inflight_count > 0 ? &inflight[inflight_count - 1] : NULL;
  if (current != NULL && !current->closed && current->bytes + slot > current->size) {
    current->closed = 1;
  }
  if (current == NULL || current->closed) {
    if (inflight_count == kMaxBuffers) {
      ++dropped;
      return;
    }
    uint8_t* buffer = NULL;
    size_t size = 0;
    size_t max_records = 0;
    requested_fn(&buffer, &size, &max_records);
    last_max_records = max_records;
    if (buffer == NULL || size < slot) {
      ++dropped;
      return;
    }
    current = &inflight[inflight_count++];
    memset(current, 0, sizeof(*current));
    current->buffer = buffer;
    current->size = size;
    current->max_records = max_records;
  }
  if (current->count == current->capacity) {
    const size_t capacity = current->capacity == 0 ? 16 : current->capacity * 2;
    Work* grown = realloc(current->work, capacity * sizeof(Work));
    if (grown == NULL) {
      ++dropped;
      return;
    }
    current->work = grown;
    current->capacity = capacity;
  }
  current->work[current->count++] = *w;
  current->bytes += slot;
  if ((current->max_records != 0 && current->count >= current->max_records) ||
      current->bytes + slot_size(kConcurrentKernel) > current->size) {
    current->closed = 1;
  }
}

static void launch(int32_t kind, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                   const char* name, uint8_t copy_kind, int untimed) {
  const int64_t now_real = realtime_ns();
  const int64_t now_cupti = (int64_t)fake_cupti_now();
  pthread_mutex_lock(&lock);
  Work w;
  memset(&w, 0, sizeof(w));
  w.kind = kind;
  w.device = device;
  w.stream = stream;
  w.start = start;
  w.end = end;
  w.done_at = now_real + ((int64_t)end - now_cupti);
  w.name = intern(name);
  w.copy_kind = copy_kind;
  w.untimed = (uint8_t)untimed;
  w.correlation = next_correlation++;
  place(&w);
  pthread_mutex_unlock(&lock);
}

/* A kernel launched by an API call (kind kRuntime or kDriver, `cbid`) on the
 * calling thread from call_start to call_end (CUPTI clock): the call's record
 * (when its kind is enabled) and the kernel's, sharing one correlation id. */
static void launch_through(int32_t api, uint32_t cbid, uint32_t device, uint32_t stream,
                           uint64_t call_start, uint64_t call_end, uint64_t start, uint64_t end,
                           const char* name) {
  const int64_t now_real = realtime_ns();
  const int64_t now_cupti = (int64_t)fake_cupti_now();
  const uint32_t thread = (uint32_t)syscall(SYS_gettid);
  pthread_mutex_lock(&lock);
  const uint32_t correlation = next_correlation++;
  Work call;
  memset(&call, 0, sizeof(call));
  call.kind = api;
  call.cbid = cbid;
  call.thread = thread;
  call.start = call_start;
  call.end = call_end;
  call.done_at = now_real + ((int64_t)call_end - now_cupti);
  call.correlation = correlation;
  place(&call);
  Work kernel;
  memset(&kernel, 0, sizeof(kernel));
  kernel.kind = kConcurrentKernel;
  kernel.device = device;
  kernel.stream = stream;
  kernel.start = start;
  kernel.end = end;
  kernel.done_at = now_real + ((int64_t)end - now_cupti);
  kernel.name = intern(name);
  kernel.correlation = correlation;
  place(&kernel);
  pthread_mutex_unlock(&lock);
}

/* A kernel launched by a cudaLaunchKernel call (a RUNTIME record). */
FAKE_API void fake_cupti_launch_kernel(uint32_t device, uint32_t stream, uint64_t call_start,
                                       uint64_t call_end, uint64_t start, uint64_t end,
                                       const char* name) {
  launch_through(kRuntime, kCbidLaunchKernel, device, stream, call_start, call_end, start, end,
                 name);
}

/* A kernel launched by a driver API call, cuLaunchKernel (`ex` 0) or
 * cuLaunchKernelEx (`ex` 1), as Triton launches (a DRIVER record). */
FAKE_API void fake_cupti_launch_kernel_driver(int ex, uint32_t device, uint32_t stream,
                                              uint64_t call_start, uint64_t call_end,
                                              uint64_t start, uint64_t end, const char* name) {
  launch_through(kDriver, ex ? kCbidCuLaunchKernelEx : kCbidCuLaunchKernel, device, stream,
                 call_start, call_end, start, end, name);
}

/* `count` launches back to back from `start`: call i lasts call_ns from
 * start + i * call_ns, its kernel starts delay_ns after the call returned and
 * runs kernel_ns. */
FAKE_API void fake_cupti_launch_kernels(size_t count, uint32_t device, uint32_t stream,
                                        uint64_t start, uint64_t call_ns, uint64_t delay_ns,
                                        uint64_t kernel_ns, const char* name) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t call = start + i * call_ns;
    const uint64_t begin = call + call_ns + delay_ns;
    fake_cupti_launch_kernel(device, stream, call, call + call_ns, begin, begin + kernel_ns, name);
  }
}

/* The same through the driver API (cuLaunchKernel), as Triton launches. */
FAKE_API void fake_cupti_launch_kernels_driver(size_t count, uint32_t device, uint32_t stream,
                                               uint64_t start, uint64_t call_ns, uint64_t delay_ns,
                                               uint64_t kernel_ns, const char* name) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t call = start + i * call_ns;
    const uint64_t begin = call + call_ns + delay_ns;
    launch_through(kDriver, kCbidCuLaunchKernel, device, stream, call, call + call_ns, begin,
                   begin + kernel_ns, name);
  }
}

FAKE_API void fake_cupti_add_kernel(uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                                    const char* name) {
  launch(kConcurrentKernel, device, stream, start, end, name, 0, 0);
}

/* `count` kernels of 1 us, 2 us apart from `start`, launched at once. */
FAKE_API void fake_cupti_add_kernels(size_t count, uint32_t device, uint32_t stream, uint64_t start,
                                     const char* name) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t begin = start + i * 2000;
    launch(kConcurrentKernel, device, stream, begin, begin + 1000, name, 0, 0);
  }
}

/* A kernel CUPTI could not time (its record carries zero timestamps). */
FAKE_API void fake_cupti_add_untimed_kernel(uint32_t device, uint32_t stream, uint64_t start,
                                            uint64_t end, const char* name) {
  launch(kConcurrentKernel, device, stream, start, end, name, 0, 1);
}

FAKE_API void fake_cupti_add_memcpy(uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                                    uint8_t copy_kind) {
  launch(kMemcpy, device, stream, start, end, NULL, copy_kind, 0);
}

FAKE_API void fake_cupti_add_memset(uint32_t device, uint32_t stream, uint64_t start,
                                    uint64_t end) {
  launch(kMemset, device, stream, start, end, NULL, 0, 0);
}

/* An API call that launches nothing (runtime: `driver` 0, driver: 1), on the
 * calling thread from call_start to call_end: a record of its kind when that
 * kind is enabled and the call not switched off. */
FAKE_API void fake_cupti_api_call(int driver, uint32_t cbid, uint64_t call_start,
                                  uint64_t call_end) {
  const int64_t now_real = realtime_ns();
  const int64_t now_cupti = (int64_t)fake_cupti_now();
  pthread_mutex_lock(&lock);
  Work call;
  memset(&call, 0, sizeof(call));
  call.kind = driver ? kDriver : kRuntime;
  call.cbid = cbid;
  call.thread = (uint32_t)syscall(SYS_gettid);
  call.start = call_start;
  call.end = call_end;
  call.done_at = now_real + ((int64_t)call_end - now_cupti);
  call.correlation = next_correlation++;
  place(&call);
  pthread_mutex_unlock(&lock);
}

/* A record of a kind the agent does not enable (a runtime API record another
 * client of the process enabled). */
FAKE_API void fake_cupti_add_other(uint64_t start, uint64_t end) {
  launch(kRuntime, 0, 0, start, end, NULL, 0, 0);
}

static void write_record(uint8_t* slot, const Work* w, int timed) {
  memset(slot, 0xAB, slot_size(w->kind)); /* fields past the prefix are garbage */
  const uint64_t start = timed ? w->start : 0;
  const uint64_t end = timed ? w->end : 0;
  if (w->kind == kConcurrentKernel) {
    KernelRecord r;
    memset(&r, 0, sizeof(r));
    r.kind = w->kind;
    r.start = start;
    r.end = end;
    r.completed = end;
    r.device_id = w->device;
    r.stream_id = w->stream;
    r.correlation_id = w->correlation;
    r.name = w->name;
    memcpy(slot, &r, sizeof(r));
  } else if (w->kind == kMemcpy) {
    MemcpyRecord r;
    memset(&r, 0, sizeof(r));
    r.kind = w->kind;
    r.copy_kind = w->copy_kind;
    r.start = start;
    r.end = end;
    r.device_id = w->device;
    r.stream_id = w->stream;
    r.correlation_id = w->correlation;
    memcpy(slot, &r, sizeof(r));
  } else if (w->kind == kMemset) {
    MemsetRecord r;
    memset(&r, 0, sizeof(r));
    r.kind = w->kind;
    r.start = start;
    r.end = end;
    r.device_id = w->device;
    r.stream_id = w->stream;
    r.correlation_id = w->correlation;
    memcpy(slot, &r, sizeof(r));
  } else if ((w->kind == kRuntime || w->kind == kDriver) && w->cbid != 0) {
    ApiRecord r;
    memset(&r, 0, sizeof(r));
    r.kind = w->kind;
    r.cbid = w->cbid;
    r.start = start;
    r.end = end;
    r.process_id = (uint32_t)getpid();
    r.thread_id = w->thread;
    r.correlation_id = w->correlation;
    memcpy(slot, &r, sizeof(r));
  } else {
    memcpy(slot, &w->kind, sizeof(w->kind));
  }
}

static int complete(const Inflight* b, int64_t now) {
  for (size_t i = 0; i < b->count; ++i) {
    if (b->work[i].done_at > now) return 0;
  }
  return 1;
}

/* Caller holds `lock`: takes out the buffers a flush of this kind returns
 * (forced: all; default: those with every record complete; worker: those
 * also full), writing their records. Returns how many went to `out`. */
static size_t collect(int forced, int worker, Delivery* out, size_t limit) {
  const int64_t now = realtime_ns();
  size_t n = 0;
  size_t kept = 0;
  for (size_t i = 0; i < inflight_count; ++i) {
    Inflight* b = &inflight[i];
    const int take = n < limit && (forced || ((!worker || b->closed) && complete(b, now)));
    if (!take) {
      inflight[kept++] = *b;
      continue;
    }
    size_t offset = 0;
    for (size_t r = 0; r < b->count; ++r) {
      const Work* w = &b->work[r];
      write_record(b->buffer + offset, w, !w->untimed && w->done_at <= now);
      offset += slot_size(w->kind);
    }
    out[n].completed = completed_fn;
    out[n].buffer = b->buffer;
    out[n].size = b->size;
    out[n].valid = offset;
    ++n;
    free(b->work);
  }
  inflight_count = kept;
  return n;
}

static void deliver(const Delivery* d, size_t n, int worker) {
  for (size_t i = 0; i < n; ++i) {
    if (d[i].completed == NULL) continue;
    const int64_t before = monotonic_ns();
    d[i].completed(NULL, 0, d[i].buffer, d[i].size, d[i].valid);
    const int64_t took = monotonic_ns() - before;
    if (worker) {
      pthread_mutex_lock(&lock);
      if (took > worker_callback_max_ns) worker_callback_max_ns = took;
      ++worker_deliveries;
      pthread_mutex_unlock(&lock);
    }
  }
}

static void* worker_main(void* unused) {
  (void)unused;
  const long long period_ms = env_int("FAKE_CUPTI_WORKER_MS", 10);
  for (;;) {
    struct timespec pause = {0, (long)(period_ms > 0 ? period_ms : 10) * 1000000L};
    nanosleep(&pause, NULL);
    Delivery out[kMaxDelivery];
    pthread_mutex_lock(&lock);
    const size_t n = collect(0, 1, out, kMaxDelivery);
    pthread_mutex_unlock(&lock);
    deliver(out, n, 1);
  }
  return NULL;
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

/* Records launched and not yet handed back. */
FAKE_API size_t fake_cupti_pending(void) {
  pthread_mutex_lock(&lock);
  size_t n = 0;
  for (size_t i = 0; i < inflight_count; ++i)
    n += inflight[i].count;
  pthread_mutex_unlock(&lock);
  return n;
}

/* The max_records the client gave with its latest buffer. */
FAKE_API size_t fake_cupti_last_max_records(void) {
  pthread_mutex_lock(&lock);
  const size_t n = last_max_records;
  pthread_mutex_unlock(&lock);
  return n;
}

/* How long the longest buffer-completed callback made on CUPTI's own worker
 * thread took, and how many it made. */
FAKE_API int64_t fake_cupti_worker_callback_max_ns(void) {
  pthread_mutex_lock(&lock);
  const int64_t n = worker_callback_max_ns;
  pthread_mutex_unlock(&lock);
  return n;
}

FAKE_API int fake_cupti_worker_deliveries(void) {
  pthread_mutex_lock(&lock);
  const int n = worker_deliveries;
  pthread_mutex_unlock(&lock);
  return n;
}

/* Runs `hook` (once) inside the next cuptiActivityGetNextRecord call, i.e.
 * while the client reads a delivered buffer. */
FAKE_API void fake_cupti_set_next_record_hook(void (*hook)(void)) {
  pthread_mutex_lock(&lock);
  next_record_hook = hook;
  pthread_mutex_unlock(&lock);
}

FAKE_API CUptiResult cuptiGetVersion(uint32_t* version) {
  if (version == NULL) return kInvalidParameter;
  *version = (uint32_t)env_int("FAKE_CUPTI_VERSION", FAKE_CUPTI_DEFAULT_VERSION);
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
  if (subscriber == NULL) return kInvalidParameter;
  if (!init_driver()) return kNotInitialized;
  const CUptiResult forced = (CUptiResult)env_int("FAKE_CUPTI_SUBSCRIBE_RESULT", 0);
  if (forced != kSuccess) return forced;
  pthread_mutex_lock(&lock);
  if (subscribers > 0) {
    pthread_mutex_unlock(&lock);
    return kMultipleSubscribers;
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
  if (!init_driver()) return kNotInitialized;
  pthread_mutex_lock(&lock);
  requested_fn = requested;
  completed_fn = completed;
  if (!worker_started && pthread_create(&worker_thread, NULL, worker_main, NULL) == 0) {
    pthread_detach(worker_thread);
    worker_started = 1;
  }
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityRegisterTimestampCallback(TimestampFunc fn) {
  if (fn == NULL) return kInvalidParameter;
  if (!init_driver()) return kNotInitialized;
  pthread_mutex_lock(&lock);
  timestamp_fn = fn;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityEnable(int kind) {
  if (!init_driver()) return kNotInitialized;
  const CUptiResult forced = (CUptiResult)env_int("FAKE_CUPTI_ENABLE_RESULT", 0);
  if (forced != kSuccess) return forced;
  if (kind < 0 || kind >= 16) return kInvalidKind;
  pthread_mutex_lock(&lock);
  enabled[kind] = 1;
  if (kind == kRuntime) memset(runtime_off, 0, sizeof(runtime_off));
  if (kind == kDriver) memset(driver_off, 0, sizeof(driver_off));
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

static CUptiResult switch_api(uint8_t* off, long long ids, uint32_t cbid, uint8_t enable) {
  if (!init_driver()) return kNotInitialized;
  const CUptiResult forced = (CUptiResult)env_int("FAKE_CUPTI_API_SWITCH_RESULT", 0);
  if (forced != kSuccess) return forced;
  if (cbid == 0 || (long long)cbid >= ids || cbid >= kMaxCbid) return kInvalidParameter;
  pthread_mutex_lock(&lock);
  off[cbid] = enable ? 0 : 1;
  ++api_switches;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t enable) {
  return switch_api(runtime_off, env_int("FAKE_CUPTI_RUNTIME_CBIDS", 523), cbid, enable);
}

FAKE_API CUptiResult cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t enable) {
  return switch_api(driver_off, env_int("FAKE_CUPTI_DRIVER_CBIDS", 807), cbid, enable);
}

FAKE_API int fake_cupti_api_switches(void) {
  pthread_mutex_lock(&lock);
  const int n = api_switches;
  pthread_mutex_unlock(&lock);
  return n;
}

FAKE_API CUptiResult cuptiActivityDisable(int kind) {
  if (kind < 0 || kind >= 16) return kInvalidKind;
  if (!init_driver()) return kNotInitialized;
  pthread_mutex_lock(&lock);
  enabled[kind] = 0;
  pthread_mutex_unlock(&lock);
  return kSuccess;
}

FAKE_API CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  if (timestamp == NULL) return kInvalidParameter;
  if (!init_driver()) return kNotInitialized;
  *timestamp = fake_cupti_now();
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  if (!init_driver()) return kNotInitialized;
  Delivery out[kMaxBuffers];
  pthread_mutex_lock(&lock);
  ++flushes;
  if (flag & 1) ++forced_flushes;
  if (requested_fn == NULL || completed_fn == NULL) {
    pthread_mutex_unlock(&lock);
    return kInvalidOperation;
  }
  const size_t n = collect((flag & 1) != 0, 0, out, kMaxBuffers);
  pthread_mutex_unlock(&lock);
  deliver(out, n, 0);
  return kSuccess;
}

FAKE_API CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size, void** record) {
  if (buffer == NULL || record == NULL) return kInvalidParameter;
  pthread_mutex_lock(&lock);
  void (*hook)(void) = next_record_hook;
  next_record_hook = NULL;
  pthread_mutex_unlock(&lock);
  if (hook != NULL) hook();
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

/* torch.profiler's Kineto, as far as CUPTI sees it: subscribes (and keeps the
 * subscription); when that fails it records on the CPU only. Otherwise it
 * registers its own buffer callbacks, which replace the previous client's,
 * and enables the kinds. fake_cupti_profiler_stop() flushes and disables
 * them, as Kineto does, and returns the kernel records its trace got. */
static pthread_mutex_t profiler_lock = PTHREAD_MUTEX_INITIALIZER;
static int profiler_kernels;
static void* profiler_subscriber;

static void profiler_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = aligned_alloc(8, 1 << 16);
  *size = *buffer != NULL ? 1 << 16 : 0;
  *max_records = 0;
}

static void profiler_completed(void* context, uint32_t stream, uint8_t* buffer, size_t size,
                               size_t valid) {
  (void)context;
  (void)stream;
  (void)size;
  void* record = NULL;
  int kernels = 0;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == kSuccess) {
    KernelRecord r;
    memcpy(&r.kind, record, sizeof(r.kind));
    if (r.kind != kConcurrentKernel) continue;
    memcpy(&r, record, sizeof(r));
    kernels += r.start != 0;
  }
  free(buffer);
  pthread_mutex_lock(&profiler_lock);
  profiler_kernels += kernels;
  pthread_mutex_unlock(&profiler_lock);
}

FAKE_API CUptiResult fake_cupti_profiler_start(void) {
  const CUptiResult rc = cuptiSubscribe(&profiler_subscriber, NULL, NULL);
  if (rc != kSuccess) return rc; /* Kineto: "CUPTI initialization failed", CPU only */
  cuptiActivityRegisterCallbacks(profiler_requested, profiler_completed);
  cuptiActivityEnable(kConcurrentKernel);
  cuptiActivityEnable(kMemcpy);
  cuptiActivityEnable(kMemset);
  return kSuccess;
}

FAKE_API int fake_cupti_profiler_stop(void) {
  cuptiActivityFlushAll(1);
  cuptiActivityDisable(kConcurrentKernel);
  cuptiActivityDisable(kMemcpy);
  cuptiActivityDisable(kMemset);
  pthread_mutex_lock(&profiler_lock);
  const int n = profiler_kernels;
  pthread_mutex_unlock(&profiler_lock);
  return n;
}

/* Kineto's TSC timestamp callback: CUPTI's clock becomes the CPU's cycle
 * counter (here: CLOCK_MONOTONIC scaled to 2.5 ticks per ns), not Unix time. */
static uint64_t tsc_clock(void) {
  return (uint64_t)(monotonic_ns() * 5 / 2) + 12345678901ull;
}

FAKE_API CUptiResult fake_cupti_use_tsc_clock(void) {
  return cuptiActivityRegisterTimestampCallback(tsc_clock);
}
