// SPDX-License-Identifier: MIT
#pragma once

/*
 * stallwatch agent: the public C ABI.
 *
 * Records epoch/step marks, I/O and compute regions and counters inside a
 * training process and streams them to stallwatchd over ZeroMQ. Everything a
 * user links against is in this header; the C++ wrapper (stallwatch.hpp) and
 * the Python extension wrap exactly these functions.
 *
 * Contract for every function here:
 *   - It never throws (all are noexcept in C++), never blocks on the network
 *     and never aborts the host process. Failures are status codes or counters.
 *   - It is safe from any thread, and in a child after fork(): the child gets
 *     its own sender and reports its own pid and its parent's.
 *   - Recording calls (sw_region_begin/end, sw_complete*, sw_mark, sw_counter*)
 *     do no allocation, lock, system call or logging. With STALLWATCH_ENABLE=0
 *     each is one predictable branch.
 *
 * Lifecycle: the agent is process-wide. sw_start() starts it explicitly; any
 * recording or interning call before that starts it lazily from the
 * environment (STALLWATCH_COLLECTOR, STALLWATCH_JOB, STALLWATCH_RANK,
 * STALLWATCH_ENABLE, and STALLWATCH_<KEY> for every sw_config_set key, e.g.
 * STALLWATCH_FLUSH_INTERVAL_MS), so configure before the first event.
 * sw_stop() flushes within a bounded linger and stops it; it also runs at
 * process exit. Recording calls after sw_stop() are dropped and counted;
 * sw_start() may start it again.
 *
 * Accounting (sw_stats): every recording call that returns SW_OK is counted
 * in events_recorded, every one that returns SW_DROPPED in events_dropped.
 * A recorded event is later sent (events_sent), lost in a batch ZeroMQ
 * refused (events_lost_in_send, also counted in events_dropped and reported
 * to the collector in the next batch's dropped_since_last), or still queued
 * (queue_depth). So, exactly:
 *   calls = events_recorded + events_dropped - events_lost_in_send
 *   events_recorded = events_sent + events_lost_in_send + queue_depth
 *
 * Other environment variables: STALLWATCH_LOG=0 silences the agent's
 * diagnostics (at most one line per second on stderr, only for real
 * problems); STALLWATCH_CLOCK=monotonic forces CLOCK_MONOTONIC instead of the
 * calibrated TSC clock ("tsc" forces the TSC when it is invariant).
 * STALLWATCH_GPU, STALLWATCH_CUPTI_PATH, STALLWATCH_NVML_PATH,
 * STALLWATCH_CUPTI_BUFFERS, STALLWATCH_CUPTI_BUFFER_KB and
 * STALLWATCH_CUPTI_STOP_WAIT_MS configure the device activity sources
 * (sw_gpu_start).
 *
 * Ownership: sw_config objects belong to the caller (sw_config_free). Strings
 * passed in are copied before the call returns. Strings returned
 * (sw_strerror, sw_name_str) are static or owned by the agent and live until
 * process exit.
 */

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
#define SW_NOEXCEPT noexcept
extern "C" {
#else
#define SW_NOEXCEPT
#endif

#if defined(SW_BUILDING_AGENT)
#define SW_API __attribute__((visibility("default")))
#else
#define SW_API
#endif

/* ---- status codes ------------------------------------------------------ */

/* 0 is success; positive values are successful calls with a remark; negative
 * values are errors. sw_strerror() names each. */
#define SW_OK 0
#define SW_DROPPED 1  /* not recorded: buffer full or agent stopped; counted */
#define SW_DISABLED 2 /* STALLWATCH_ENABLE=0 or sw_config "enable=0": nothing recorded */
#define SW_ERR_INVALID_ARGUMENT (-1)
#define SW_ERR_UNKNOWN_KEY (-2) /* sw_config_set: no such key */
#define SW_ERR_BAD_VALUE (-3)   /* sw_config_set: value does not parse or is out of range */
#define SW_ERR_ALREADY_STARTED (-4)
#define SW_ERR_NOT_STARTED (-5)
#define SW_ERR_NO_MEMORY (-6)
#define SW_ERR_TRANSPORT (-7) /* ZeroMQ could not create or connect the socket */
#define SW_ERR_LIMIT (-8)     /* a fixed limit was reached (e.g. interned names) */
#define SW_ERR_INTERNAL (-9)

/* Returns a static, human-readable description of a status code. */
SW_API const char* sw_strerror(int status) SW_NOEXCEPT;

/* ---- configuration ----------------------------------------------------- */

/* Opaque configuration. Created pre-filled from the environment. */
typedef struct sw_config sw_config;

/* Allocates a config filled from defaults and the environment. Caller frees. */
SW_API int sw_config_new(sw_config** out) SW_NOEXCEPT;
SW_API void sw_config_free(sw_config* config) SW_NOEXCEPT;

/* Sets one key from its string form. Keys:
 *   collector          ZeroMQ endpoint (default ipc socket, then tcp://127.0.0.1:5557)
 *   job, rank          identity (see the README, "Agent settings")
 *   enable             "0" switches the agent off
 *   role               "main" or "worker"
 *   device_source      "none", "cupti", "cuda-events", "nvml"
 *   flush_interval_ms  sender flush period, 1..50 (default 20)
 *   heartbeat_ms       idle heartbeat period, 10..1000 (default 1000)
 *   buffer_events      per-thread ring capacity, power of two, 256..1048576 (default 16384)
 *   batch_events       events per batch, 64..65536 (default 8192)
 *   send_hwm           ZeroMQ send high-water mark in messages (default 64)
 *   linger_ms          how long stop/exit may wait to flush, 0..10000 (default 250)
 *   collector_key      the collector's CURVE public key (40 characters of Z85):
 *                      connect with CURVE, to a collector on another host
 *   collector_key_file a file holding that key (used when collector_key is unset)
 *   agent_key_file     this agent's CURVE secret key file (mode 0600), for a
 *                      collector with an allow-list; default: a fresh key pair
 *   proc_io            "1" samples /proc/self/io every heartbeat_ms as counters
 *                      (cat "proc_io": "rchar", "read_bytes"); default "0", or
 *                      "1" when STALLWATCH_POSIX=1
 */
SW_API int sw_config_set(sw_config* config, const char* key, const char* value) SW_NOEXCEPT;

/* ---- lifecycle --------------------------------------------------------- */

/* Starts the agent with `config` (copied), or from the environment when NULL.
 * Returns SW_DISABLED when switched off, SW_ERR_ALREADY_STARTED when running,
 * SW_ERR_TRANSPORT for an endpoint ZeroMQ rejects. A collector that is absent
 * is not an error: events are dropped and counted until it appears. So that
 * connection set-up loses nothing, the sender sends nothing (events stay in
 * the per-thread buffers, no seq is used) until its first connection is up or
 * 2 s have passed; sw_stop()/exit before that waits at most linger_ms more. */
SW_API int sw_start(const sw_config* config) SW_NOEXCEPT;

/* Flushes what is buffered (waiting at most linger_ms) and stops the sender.
 * Sends a final batch so the collector marks the process finished. */
SW_API int sw_stop(void) SW_NOEXCEPT;

/* Asks the sender to drain and send everything recorded so far and waits up
 * to `timeout_ms` for it to have been handed to ZeroMQ. Returns SW_OK when it
 * has, SW_DROPPED when the wait timed out or a batch was refused meanwhile
 * (no collector), SW_ERR_NOT_STARTED / SW_DISABLED when there is no sender.
 * For tests and explicit sync points; never needed on the hot path. */
SW_API int sw_flush(int timeout_ms) SW_NOEXCEPT;

/* 1 when recording calls record, 0 when disabled or stopped. */
SW_API int sw_is_enabled(void) SW_NOEXCEPT;

/* 1 when the agent runs now (started, or inherited by a forked child that
 * restarts it on its next call), 0 otherwise. Unlike every other call, it
 * never starts the agent: for code that must not be the one to start it
 * (libstallwatch_posix.so). */
SW_API int sw_is_running(void) SW_NOEXCEPT;

/* ---- names ------------------------------------------------------------- */

/* An interned string; 0 is "no name". Ids are process-wide and stable for the
 * life of the process (also in forked children). */
typedef uint32_t sw_name_t;

/* Interns a category or event name (copied; at most 1024 bytes; at most 65535
 * names per process). Takes a lock: call once and keep the id. Returns 0 when
 * disabled, on a NULL/empty/too-long string, or past the limit. */
SW_API sw_name_t sw_intern(const char* str) SW_NOEXCEPT;
SW_API sw_name_t sw_intern_n(const char* str, size_t len) SW_NOEXCEPT;

/* The string behind an id, or NULL for an unknown id. Owned by the agent. */
SW_API const char* sw_name_str(sw_name_t name) SW_NOEXCEPT;

/* ---- recording (hot path) --------------------------------------------- */

/* A region in progress: the opening thread's id in the high 32 bits and a
 * per-thread region id (never 0) in the low 32 bits. 0 is "none" (the agent
 * is disabled). Pass it to sw_region_end exactly once, from any thread; the
 * END carries the opening thread's id. When the BEGIN itself could not be
 * recorded (buffer full, agent stopped) the token is still non-zero and
 * ending it counts one more drop instead of sending an unmatched END. */
typedef uint64_t sw_region_t;

/* Current time on the agent's clock: Unix epoch nanoseconds, monotonic
 * within the process (one offset taken at start). */
SW_API int64_t sw_now_ns(void) SW_NOEXCEPT;

/* Opens a region now. Open regions are visible to the collector while they
 * are open (a loop stuck in a fetch shows as stuck). */
SW_API sw_region_t sw_region_begin(sw_name_t cat, sw_name_t name) SW_NOEXCEPT;

/* Opens a region now with a payload on its BEGIN (wire Event.value), e.g. the
 * interned name of the file a POSIX call works on (libstallwatch_posix.so).
 * The collector measures the region the same way; the value only annotates
 * it. Otherwise exactly sw_region_begin. */
SW_API sw_region_t sw_region_begin_value(sw_name_t cat, sw_name_t name, int64_t value) SW_NOEXCEPT;

/* Closes a region now. sw_region_end(0) is a no-op returning SW_DISABLED. */
SW_API int sw_region_end(sw_region_t region) SW_NOEXCEPT;

/* Closes a region now with a payload on its END (wire Event.value). The
 * collector measures the region the same way; the value only annotates it.
 * Used e.g. by the Python `.iter()` wrapper to mark the wait that ended a loop
 * (SW_END_LOOP_EXHAUSTED), which pydftracer-style tools do not count as an
 * event although the loop really waited. */
#define SW_END_LOOP_EXHAUSTED 1
/* The END payload of a call that returned a generator (a decorated generator
 * function): measured, but it fetched no item, so it is no step. */
#define SW_END_NO_ITEM 2
SW_API int sw_region_end_value(sw_region_t region, int64_t value) SW_NOEXCEPT;

/* Records a finished region [start_ns, start_ns + dur_ns) on this thread;
 * start_ns is on the sw_now_ns() clock. SW_ERR_INVALID_ARGUMENT when
 * dur_ns < 0 (not counted). */
SW_API int sw_complete(sw_name_t cat, sw_name_t name, int64_t start_ns, int64_t dur_ns) SW_NOEXCEPT;

/* A call timed whole, for wrappers of short calls (libstallwatch_posix.so
 * times every read this way): one record instead of a BEGIN and an END.
 * sw_call_start() reads the clock on this thread and returns an opaque stamp,
 * 0 when nothing can be recorded (disabled, or refused and counted). Where
 * the agent's clock is CLOCK_MONOTONIC and the CPU has an invariant TSC, the
 * stamp is the TSC: the duration is TSC-timed and the clock read once, at the
 * end (STALLWATCH_CLOCK=monotonic reads it at both ends). Neither call ever
 * changes errno.
 * sw_call_end() on the same thread records the region from that stamp to now
 * as a Complete whose value counts (wire flag CompleteValue: e.g. the
 * bytes a read moved) and whose `subject` (an interned name, e.g. the file's,
 * as sw_region_begin_value's payload) goes in its region_id. A call longer than
 * 2^32 clock ticks is sent as a BEGIN (value `subject`) and an END (`value`).
 * sw_call_end with stamp 0 does nothing and returns SW_DISABLED. */
SW_API int64_t sw_call_start(void) SW_NOEXCEPT;
SW_API int sw_call_end(sw_name_t cat, sw_name_t name, int64_t start, int64_t value,
                       sw_name_t subject) SW_NOEXCEPT;

/* Records an instant now with an integer payload, e.g. ("pipeline",
 * "epoch.start", 3) or ("pipeline", "step", 1200). */
SW_API int sw_mark(sw_name_t cat, sw_name_t name, int64_t value) SW_NOEXCEPT;

/* Records a counter sample now, e.g. ("pipeline", "batch_size", 256). */
SW_API int sw_counter(sw_name_t cat, sw_name_t name, int64_t value) SW_NOEXCEPT;
SW_API int sw_counter_f64(sw_name_t cat, sw_name_t name, double value) SW_NOEXCEPT;

/* ---- the agent's own statistics ---------------------------------------- */

typedef struct sw_stats {
  uint32_t size;            /* in: sizeof(sw_stats) of the caller's header; out: bytes filled */
  uint32_t threads;         /* threads with a live event buffer */
  uint64_t events_recorded; /* accepted into a per-thread buffer */
  uint64_t events_dropped;  /* refused (buffer full, stopped) or lost in a failed send */
  uint64_t events_sent;     /* handed to ZeroMQ in a batch */
  uint64_t batches_sent;    /* including heartbeats */
  uint64_t heartbeats_sent; /* batches with no events */
  uint64_t send_failures;   /* batches ZeroMQ would not take (no peer, HWM) */
  uint64_t queue_depth;     /* events buffered, not yet sent */
  int32_t pid;
  int32_t ppid;
  uint64_t events_lost_in_send; /* recorded, then in a batch ZeroMQ refused (in events_dropped) */
} sw_stats;

/* Fills `out` (set out->size first). Works in every state. In a forked child
 * the counters start from zero. */
SW_API int sw_get_stats(sw_stats* out) SW_NOEXCEPT;

/* ---- device activity (GPU) --------------------------------------------- */

/* A lane: the thread id that device work is recorded under, one per (device,
 * stream), so that a timeline shows one row per stream. Lanes have the high
 * bit set, so they never equal a real thread id (Linux tids are below 2^22). */
typedef uint32_t sw_lane_t;

/* The stream of a device-wide lane (counters that describe the whole device). */
#define SW_STREAM_DEVICE_WIDE 0xffffffu

/* The lane of `stream` on `device`: devices 0..127, streams folded into their
 * low 24 bits. Pure function; never 0. */
SW_API sw_lane_t sw_device_lane(uint32_t device, uint32_t stream) SW_NOEXCEPT;

/* Records a finished piece of device work [start_ns, start_ns + dur_ns) on
 * `lane` (start_ns on the sw_now_ns() clock), e.g. ("gpu", kernel name) for a
 * kernel; the collector classes cat "gpu" as DEVICE_BUSY. A hot-path call like
 * sw_complete, from any thread. SW_ERR_INVALID_ARGUMENT (not counted) when
 * `lane` is not a device lane or dur_ns < 0. */
SW_API int sw_complete_on(sw_lane_t lane, sw_name_t cat, sw_name_t name, int64_t start_ns,
                          int64_t dur_ns) SW_NOEXCEPT;

/* Opens a region on `lane` that started at `start_ns` (sw_now_ns() clock),
 * e.g. ("gpu", "forward") once the device reached a span's start: the
 * collector counts an open region up to the newest time it has heard of, so
 * device work longer than its lateness counts in full, unlike a COMPLETE sent
 * when it ends. Close it with sw_region_end_on, from any thread; the END
 * carries the lane. 0 when `lane` is not a device lane or the agent is
 * disabled; like sw_region_begin, a token whose BEGIN was dropped counts one
 * more drop when ended. */
SW_API sw_region_t sw_region_begin_on(sw_lane_t lane, sw_name_t cat, sw_name_t name,
                                      int64_t start_ns) SW_NOEXCEPT;

/* Closes a lane region at `end_ns` (sw_now_ns() clock; not before its start).
 * SW_DISABLED for 0, SW_ERR_INVALID_ARGUMENT for a token of another kind. */
SW_API int sw_region_end_on(sw_region_t region, int64_t end_ns) SW_NOEXCEPT;

/* Records a counter sample now on `lane` (e.g. a GPU's utilization on its
 * device-wide lane). SW_ERR_INVALID_ARGUMENT (not counted) for a non-lane. */
SW_API int sw_counter_f64_on(sw_lane_t lane, sw_name_t cat, sw_name_t name,
                             double value) SW_NOEXCEPT;

/* Where this process's device-busy signal comes from: the wire's
 * Source.device_source, sent in every batch. */
#define SW_DEVICE_SOURCE_NONE 0
#define SW_DEVICE_SOURCE_CUPTI 1
#define SW_DEVICE_SOURCE_CUDA_EVENTS 2
#define SW_DEVICE_SOURCE_NVML 3

/* Starts the device activity sources (agent/gpu/README.md). `mode`:
 *   "auto"         CUPTI when it loads, a device is there and no other CUPTI
 *                  client (Nsight Systems, a profiler) holds it; else none
 *   "cupti"        the CUPTI Activity API: every kernel, memcpy and memset
 *                  becomes a cat "gpu" complete event on its stream's lane
 *   "cuda-events"  the caller records device spans itself (sw_complete_on);
 *                  this only declares it (stallwatch.torch does so)
 *   "nvml"         NVML counters alone (a cross-check, not device-busy time)
 *   "none"         nothing
 * or a comma-separated preference list ("cupti,cuda-events"): the first that
 * starts wins. NULL reads STALLWATCH_GPU, default "auto". NVML counters (cat
 * "gpu_counters", 1 Hz) run alongside every mode but "none" when
 * libnvidia-ml.so.1 loads. When the first preference cannot start (library
 * missing, no GPU or driver, CUPTI taken) the agent writes exactly one line
 * on stderr saying why and what it uses instead (unless STALLWATCH_LOG=0);
 * it never fails the host. The declared device_source follows the winner:
 * cupti, cuda-events, nvml (NVML alone), or the configured one for none.
 * STALLWATCH_CUPTI_PATH / STALLWATCH_NVML_PATH name the library files to use
 * instead of searching for them. CUPTI is armed only once the program has
 * initialized CUDA itself (the agent never initializes it: a parent that did
 * cannot fork children that use CUDA); until then the description says it
 * waits, and if arming then fails, one line says so and the declared source
 * goes back to the configured one.
 *
 * Starts the agent lazily, as recording calls do. Returns SW_OK (the winner is
 * in sw_gpu_get_stats), SW_ERR_BAD_VALUE for an unknown mode,
 * SW_ERR_ALREADY_STARTED, SW_DISABLED, or the error that kept the agent from
 * starting. Takes a lock and may wait a few milliseconds: not for hot paths. */
SW_API int sw_gpu_start(const char* mode) SW_NOEXCEPT;

/* Lets the device finish the work CUPTI recorded (at most
 * STALLWATCH_CUPTI_STOP_WAIT_MS, default 2000; no CUDA call), delivers the
 * device records still buffered (a forced CUPTI flush) and stops the sources. The declared
 * device_source stays: the events already sent came from that source (a later sw_gpu_start declares
 * its own winner). sw_stop() does it first; call it before exit() in C/C++ programs, since at
 * process exit the agent no longer calls into CUDA libraries (their own teardown may have run) and
 * loses the last ~100 ms of records. SW_ERR_NOT_STARTED when not running. */
SW_API int sw_gpu_stop(void) SW_NOEXCEPT;

typedef struct sw_gpu_stats {
  uint32_t size;                  /* in: sizeof(sw_gpu_stats) of the caller's header;
                                     out: bytes filled */
  uint32_t device_source;         /* SW_DEVICE_SOURCE_* the last sw_gpu_start declared */
  uint32_t running;               /* 1 between a successful sw_gpu_start and sw_gpu_stop */
  uint32_t nvml_devices;          /* devices NVML samples; 0 when NVML is off */
  uint64_t activity_records;      /* CUPTI records turned into events */
  uint64_t activity_dropped;      /* device work CUPTI reported but that never became an event (no
                                     free buffer, no timestamps); also reported on the wire as
                                     agent drops */
  uint64_t activity_skipped;      /* records of other kinds, ignored */
  uint64_t buffers_completed;     /* activity buffers CUPTI handed back */
  uint64_t buffers_refused;       /* buffer requests refused: the fixed pool was exhausted */
  uint64_t clock_samples;         /* (CUPTI clock, agent clock) pairs taken */
  uint64_t clock_resets;          /* CUPTI clock steps that restarted the mapping */
  uint64_t nvml_samples;          /* NVML counter events recorded */
  uint64_t nvml_errors;           /* NVML readings that failed */
  uint32_t fell_back;             /* 1 when the last sw_gpu_start's first preference could not
                                     start (and its one line on stderr said so) */
  uint64_t activity_untimed;      /* device records that came without timestamps (lack of device
                                     memory, or unfinished at a forced flush); in activity_dropped */
  uint64_t forced_flushes;        /* forced CUPTI flushes because no buffer came back for 1 s */
  uint64_t delivery_delay_ns;     /* the latest CUPTI buffer: its arrival minus the earliest end
                                     of its records (the collector's lateness is 2 s) */
  uint64_t delivery_delay_max_ns; /* the longest such delay since sw_gpu_start */
  uint64_t records_per_buffer;    /* records CUPTI may put in a buffer now (paced) */
} sw_gpu_stats;

/* Fills `out` (set out->size first). Works in every state. */
SW_API int sw_gpu_get_stats(sw_gpu_stats* out) SW_NOEXCEPT;

/* Copies the outcome of the last sw_gpu_start in words ("cupti", or
 * "compute-proxy (cupti: libcupti.so not found)") into `buffer` (NUL
 * terminated, truncated to `size`). Returns the full length. */
SW_API size_t sw_gpu_describe(char* buffer, size_t size) SW_NOEXCEPT;

#if defined(__cplusplus)
} /* extern "C" */
#endif
