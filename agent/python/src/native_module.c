// SPDX-License-Identifier: MIT
/*
 * stallwatch._native: the Python binding of the agent's public C ABI
 * (agent/include/stallwatch/stallwatch.h) and nothing more. Python marks
 * regions; the C agent records and sends them.
 *
 * Built against CPython's stable ABI as of 3.8 (Py_LIMITED_API 0x03080000),
 * so one _native.abi3.so loads in every CPython >= 3.8; functions that take
 * arguments are METH_FASTCALL on 3.10 and newer and METH_VARARGS before
 * (calling_convention.h). Every function returns the agent's status codes as
 * ints instead of raising: the only exceptions are argument type errors,
 * raised before the agent is called.
 */

#include <Python.h>
#include <stallwatch/stallwatch.h>
#include <string.h>

#include "calling_convention.h"
#include "region_stack.h"
#include "region_type.h"
#include "slot_cast.h"
#include "utf8_view.h"

static int arg_count_ok(const char* fn, Py_ssize_t nargs, Py_ssize_t min, Py_ssize_t max) {
  if (nargs >= min && nargs <= max) return 1;
  PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", fn, min, max, nargs);
  return 0;
}

static int as_name(PyObject* obj, sw_name_t* out) {
  unsigned long value = PyLong_AsUnsignedLong(obj);
  if (value == (unsigned long)-1 && PyErr_Occurred()) return 0;
  *out = (sw_name_t)value;
  return 1;
}

static PyObject* native_intern(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("intern", nargs, 1, 1)) return NULL;
  Utf8View name;
  if (!utf8_view_of(args[0], &name)) return NULL;
  sw_name_t id = sw_intern_n(name.data, (size_t)name.size);
  utf8_view_release(&name);
  return PyLong_FromUnsignedLong(id);
}

static PyObject* native_name_str(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  sw_name_t name = 0;
  if (!arg_count_ok("name_str", nargs, 1, 1) || !as_name(args[0], &name)) return NULL;
  const char* str = sw_name_str(name);
  if (str == NULL) Py_RETURN_NONE;
  return PyUnicode_FromString(str);
}

static PyObject* native_region_begin(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  sw_name_t cat = 0;
  sw_name_t name = 0;
  if (!arg_count_ok("region_begin", nargs, 2, 2) || !as_name(args[0], &cat) ||
      !as_name(args[1], &name)) {
    return NULL;
  }
  return PyLong_FromUnsignedLongLong(sw_region_begin(cat, name));
}

static PyObject* native_region_end(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("region_end", nargs, 1, 1)) return NULL;
  unsigned long long token = PyLong_AsUnsignedLongLong(args[0]);
  if (token == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLong(sw_region_end((sw_region_t)token));
}

static PyObject* native_region_end_value(PyObject* module, PyObject* const* args,
                                         Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("region_end_value", nargs, 2, 2)) return NULL;
  unsigned long long token = PyLong_AsUnsignedLongLong(args[0]);
  if (token == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  long long value = PyLong_AsLongLong(args[1]);
  if (value == -1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLong(sw_region_end_value((sw_region_t)token, (int64_t)value));
}

static PyObject* native_complete(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  sw_name_t cat = 0;
  sw_name_t name = 0;
  if (!arg_count_ok("complete", nargs, 4, 4) || !as_name(args[0], &cat) ||
      !as_name(args[1], &name)) {
    return NULL;
  }
  long long start_ns = PyLong_AsLongLong(args[2]);
  long long dur_ns = PyLong_AsLongLong(args[3]);
  if (PyErr_Occurred()) return NULL;
  return PyLong_FromLong(sw_complete(cat, name, start_ns, dur_ns));
}

static PyObject* native_mark(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  sw_name_t cat = 0;
  sw_name_t name = 0;
  if (!arg_count_ok("mark", nargs, 3, 3) || !as_name(args[0], &cat) || !as_name(args[1], &name)) {
    return NULL;
  }
  long long value = PyLong_AsLongLong(args[2]);
  if (value == -1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLong(sw_mark(cat, name, value));
}

static PyObject* native_counter(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  sw_name_t cat = 0;
  sw_name_t name = 0;
  if (!arg_count_ok("counter", nargs, 3, 3) || !as_name(args[0], &cat) ||
      !as_name(args[1], &name)) {
    return NULL;
  }
  if (PyFloat_Check(args[2])) {
    return PyLong_FromLong(sw_counter_f64(cat, name, PyFloat_AsDouble(args[2])));
  }
  long long value = PyLong_AsLongLong(args[2]);
  if (value == -1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLong(sw_counter(cat, name, value));
}

static PyObject* native_now_ns(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  return PyLong_FromLongLong(sw_now_ns());
}

static int apply_option(sw_config* config, PyObject* key, PyObject* value) {
  PyObject* value_str = PyObject_Str(value);
  if (value_str == NULL) return SW_ERR_INVALID_ARGUMENT;
  Utf8View key_utf8;
  Utf8View value_utf8;
  int status = SW_ERR_INVALID_ARGUMENT;
  if (utf8_view_of(key, &key_utf8)) {
    if (utf8_view_of(value_str, &value_utf8)) {
      status = sw_config_set(config, key_utf8.data, value_utf8.data);
      utf8_view_release(&value_utf8);
    }
    utf8_view_release(&key_utf8);
  }
  Py_DECREF(value_str);
  return status;
}

static PyObject* native_start(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("start", nargs, 0, 1)) return NULL;
  PyObject* options = nargs == 1 ? args[0] : Py_None;
  if (options == Py_None) return PyLong_FromLong(sw_start(NULL));
  if (!PyDict_Check(options)) {
    PyErr_SetString(PyExc_TypeError, "start() takes a dict of agent options or None");
    return NULL;
  }
  sw_config* config = NULL;
  int status = sw_config_new(&config);
  if (status != SW_OK) return PyLong_FromLong(status);
  PyObject* key = NULL;
  PyObject* value = NULL;
  Py_ssize_t pos = 0;
  while (status >= 0 && PyDict_Next(options, &pos, &key, &value)) {
    status = apply_option(config, key, value);
  }
  PyErr_Clear();
  if (status >= 0) status = sw_start(config);
  sw_config_free(config);
  return PyLong_FromLong(status);
}

static PyObject* native_stop(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  PyThreadState* saved = PyEval_SaveThread();
  int status = sw_stop();
  PyEval_RestoreThread(saved);
  return PyLong_FromLong(status);
}

static PyObject* native_flush(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("flush", nargs, 0, 1)) return NULL;
  long timeout_ms = 1000;
  if (nargs == 1) {
    timeout_ms = PyLong_AsLong(args[0]);
    if (timeout_ms == -1 && PyErr_Occurred()) return NULL;
  }
  PyThreadState* saved = PyEval_SaveThread();
  int status = sw_flush((int)timeout_ms);
  PyEval_RestoreThread(saved);
  return PyLong_FromLong(status);
}

static PyObject* native_is_enabled(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  return PyBool_FromLong(sw_is_enabled());
}

static PyObject* native_strerror(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("strerror", nargs, 1, 1)) return NULL;
  long status = PyLong_AsLong(args[0]);
  if (status == -1 && PyErr_Occurred()) return NULL;
  return PyUnicode_FromString(sw_strerror((int)status));
}

static int put_obj(PyObject* dict, const char* key, PyObject* obj) {
  if (obj == NULL) return -1;
  int rc = PyDict_SetItemString(dict, key, obj);
  Py_DECREF(obj);
  return rc;
}

static int put_u64(PyObject* dict, const char* key, unsigned long long value) {
  return put_obj(dict, key, PyLong_FromUnsignedLongLong(value));
}

static int put_i64(PyObject* dict, const char* key, long long value) {
  return put_obj(dict, key, PyLong_FromLongLong(value));
}

static PyObject* native_stats(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  sw_stats stats = {0};
  stats.size = (uint32_t)sizeof(stats);
  int status = sw_get_stats(&stats);
  PyObject* dict = PyDict_New();
  if (dict == NULL) return NULL;
  int rc = put_i64(dict, "status", status) | put_u64(dict, "threads", stats.threads) |
           put_u64(dict, "events_recorded", stats.events_recorded) |
           put_u64(dict, "events_dropped", stats.events_dropped) |
           put_u64(dict, "events_sent", stats.events_sent) |
           put_u64(dict, "batches_sent", stats.batches_sent) |
           put_u64(dict, "heartbeats_sent", stats.heartbeats_sent) |
           put_u64(dict, "send_failures", stats.send_failures) |
           put_u64(dict, "queue_depth", stats.queue_depth) | put_i64(dict, "pid", stats.pid) |
           put_i64(dict, "ppid", stats.ppid) |
           put_u64(dict, "events_lost_in_send", stats.events_lost_in_send) |
           put_u64(dict, "python_stack_overflows", swpy_stack_overflows()) |
           put_u64(dict, "python_unmatched_exits", swpy_stack_unmatched());
  if (rc != 0) {
    Py_DECREF(dict);
    return NULL;
  }
  return dict;
}

static PyObject* native_device_lane(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("device_lane", nargs, 2, 2)) return NULL;
  unsigned long device = PyLong_AsUnsignedLong(args[0]);
  if (device == (unsigned long)-1 && PyErr_Occurred()) return NULL;
  unsigned long long stream = PyLong_AsUnsignedLongLong(args[1]);
  if (stream == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  return PyLong_FromUnsignedLong(sw_device_lane((uint32_t)device, (uint32_t)stream));
}

static PyObject* native_complete_on(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  sw_name_t cat = 0;
  sw_name_t name = 0;
  if (!arg_count_ok("complete_on", nargs, 5, 5)) return NULL;
  unsigned long lane = PyLong_AsUnsignedLong(args[0]);
  if (lane == (unsigned long)-1 && PyErr_Occurred()) return NULL;
  if (!as_name(args[1], &cat) || !as_name(args[2], &name)) return NULL;
  long long start_ns = PyLong_AsLongLong(args[3]);
  long long dur_ns = PyLong_AsLongLong(args[4]);
  if (PyErr_Occurred()) return NULL;
  return PyLong_FromLong(sw_complete_on((sw_lane_t)lane, cat, name, start_ns, dur_ns));
}

static PyObject* native_region_begin_on(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  sw_name_t cat = 0;
  sw_name_t name = 0;
  if (!arg_count_ok("region_begin_on", nargs, 4, 4)) return NULL;
  unsigned long lane = PyLong_AsUnsignedLong(args[0]);
  if (lane == (unsigned long)-1 && PyErr_Occurred()) return NULL;
  if (!as_name(args[1], &cat) || !as_name(args[2], &name)) return NULL;
  long long start_ns = PyLong_AsLongLong(args[3]);
  if (PyErr_Occurred()) return NULL;
  return PyLong_FromUnsignedLongLong(sw_region_begin_on((sw_lane_t)lane, cat, name, start_ns));
}

static PyObject* native_region_end_on(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("region_end_on", nargs, 2, 2)) return NULL;
  unsigned long long token = PyLong_AsUnsignedLongLong(args[0]);
  if (token == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  long long end_ns = PyLong_AsLongLong(args[1]);
  if (PyErr_Occurred()) return NULL;
  return PyLong_FromLong(sw_region_end_on((sw_region_t)token, end_ns));
}

static PyObject* native_gpu_start(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  if (!arg_count_ok("gpu_start", nargs, 0, 1)) return NULL;
  Utf8View mode = {NULL, NULL, 0};
  if (nargs == 1 && args[0] != Py_None && !utf8_view_of(args[0], &mode)) return NULL;
  PyThreadState* saved = PyEval_SaveThread();
  int status = sw_gpu_start(mode.data);
  PyEval_RestoreThread(saved);
  utf8_view_release(&mode);
  return PyLong_FromLong(status);
}

static PyObject* native_gpu_stop(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  PyThreadState* saved = PyEval_SaveThread();
  int status = sw_gpu_stop();
  PyEval_RestoreThread(saved);
  return PyLong_FromLong(status);
}

static PyObject* native_gpu_stats(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  sw_gpu_stats stats = {0};
  stats.size = (uint32_t)sizeof(stats);
  int status = sw_gpu_get_stats(&stats);
  char description[512];
  sw_gpu_describe(description, sizeof(description));
  PyObject* dict = PyDict_New();
  if (dict == NULL) return NULL;
  int rc = put_i64(dict, "status", status) | put_u64(dict, "device_source", stats.device_source) |
           put_u64(dict, "running", stats.running) |
           put_u64(dict, "nvml_devices", stats.nvml_devices) |
           put_u64(dict, "activity_records", stats.activity_records) |
           put_u64(dict, "activity_dropped", stats.activity_dropped) |
           put_u64(dict, "activity_skipped", stats.activity_skipped) |
           put_u64(dict, "buffers_completed", stats.buffers_completed) |
           put_u64(dict, "buffers_refused", stats.buffers_refused) |
           put_u64(dict, "clock_samples", stats.clock_samples) |
           put_u64(dict, "clock_resets", stats.clock_resets) |
           put_u64(dict, "nvml_samples", stats.nvml_samples) |
           put_u64(dict, "nvml_errors", stats.nvml_errors) |
           put_u64(dict, "fell_back", stats.fell_back) |
           put_u64(dict, "activity_untimed", stats.activity_untimed) |
           put_u64(dict, "forced_flushes", stats.forced_flushes) |
           put_u64(dict, "delivery_delay_ns", stats.delivery_delay_ns) |
           put_u64(dict, "delivery_delay_max_ns", stats.delivery_delay_max_ns) |
           put_u64(dict, "records_per_buffer", stats.records_per_buffer) |
           put_obj(dict, "description",
                   PyUnicode_DecodeUTF8(description, (Py_ssize_t)strlen(description), "replace"));
  if (rc != 0) {
    Py_DECREF(dict);
    return NULL;
  }
  return dict;
}

static PyObject* native_stack_depth(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  return PyLong_FromLong(swpy_stack_depth());
}

/* The functions that take arguments (METH_FASTCALL or METH_VARARGS, see
 * calling_convention.h) and their docstrings. */
#define SW_FUNCTIONS_WITH_ARGS(X)                                                                  \
  X(intern, "intern(str) -> int: the agent's id for a name; 0 when disabled or invalid.")          \
  X(name_str, "name_str(id) -> str | None: the string behind an interned id.")                     \
  X(region_begin, "region_begin(cat_id, name_id) -> token: opens a region now (0: not recorded).") \
  X(region_end, "region_end(token) -> status: closes a region now; pass each token once.")         \
  X(region_end_value,                                                                              \
    "region_end_value(token, value) -> status: closes a region with a value on its END.")          \
  X(complete, "complete(cat_id, name_id, start_ns, dur_ns) -> status: a finished region.")         \
  X(mark, "mark(cat_id, name_id, value) -> status: an instant with an integer payload.")           \
  X(counter, "counter(cat_id, name_id, value) -> status: a counter sample (int or float).")        \
  X(start, "start(options: dict | None) -> status: starts the agent (keys of sw_config_set).")     \
  X(flush, "flush(timeout_ms=1000) -> status: waits until what was recorded is sent.")             \
  X(strerror, "strerror(status) -> str: what a status code means.")                                \
  X(device_lane,                                                                                   \
    "device_lane(device, stream) -> int: the lane (synthetic thread id) of a device stream.")      \
  X(region_begin_on,                                                                               \
    "region_begin_on(lane, cat_id, name_id, start_ns) -> token: opens a region on a lane.")        \
  X(region_end_on, "region_end_on(token, end_ns) -> status: closes a lane region.")                \
  X(complete_on,                                                                                   \
    "complete_on(lane, cat_id, name_id, start_ns, dur_ns) -> status: device work on a lane.")      \
  X(gpu_start, "gpu_start(mode: str | None) -> status: starts the GPU activity sources.")

#define SW_TUPLE_ENTRY(name, doc) SWPY_TUPLE_ENTRY(native_##name)
SW_FUNCTIONS_WITH_ARGS(SW_TUPLE_ENTRY)

#define SW_FASTCALL_DEF(name, doc) {#name, SWPY_FASTCALL_FN(native_##name), METH_FASTCALL, doc},
#define SW_VARARGS_DEF(name, doc) {#name, native_##name##_tuple, METH_VARARGS, doc},

#define SW_FUNCTIONS_WITHOUT_ARGS                                                           \
  {"now_ns", native_now_ns, METH_NOARGS,                                                    \
   "now_ns() -> int: the agent's clock, Unix epoch nanoseconds."},                          \
      {"stop", native_stop, METH_NOARGS, "stop() -> status: flushes and stops the agent."}, \
      {"is_enabled", native_is_enabled, METH_NOARGS,                                        \
       "is_enabled() -> bool: whether recording calls record."},                            \
      {"stats", native_stats, METH_NOARGS, "stats() -> dict: the agent's own counters."},   \
      {"gpu_stop", native_gpu_stop, METH_NOARGS,                                            \
       "gpu_stop() -> status: delivers pending device records and stops the sources."},     \
      {"gpu_stats", native_gpu_stats, METH_NOARGS,                                          \
       "gpu_stats() -> dict: the GPU sources' counters and the chosen source in words."},   \
      {"stack_depth", native_stack_depth, METH_NOARGS,                                      \
       "stack_depth() -> int: regions this thread has open through Region objects."},

static PyMethodDef fastcall_methods[] = {
    SW_FUNCTIONS_WITH_ARGS(SW_FASTCALL_DEF) SW_FUNCTIONS_WITHOUT_ARGS{NULL, NULL, 0, NULL},
};

static PyMethodDef varargs_methods[] = {
    SW_FUNCTIONS_WITH_ARGS(SW_VARARGS_DEF) SW_FUNCTIONS_WITHOUT_ARGS{NULL, NULL, 0, NULL},
};

static int add_int(PyObject* module, const char* name, long value) {
  PyObject* obj = PyLong_FromLong(value);
  if (obj == NULL) return -1;
  int rc = PyModule_AddObject(module, name, obj);
  if (rc != 0) Py_DECREF(obj);
  return rc;
}

static int native_exec(PyObject* module) {
  if (swpy_stack_install_fork_handler() != 0) {
    PyErr_SetString(PyExc_OSError, "pthread_atfork failed");
    return -1;
  }
  const int fastcall = swpy_use_fastcall();
  if (PyModule_AddFunctions(module, fastcall ? fastcall_methods : varargs_methods) != 0) return -1;
  PyObject* region_type = swpy_region_type_new(fastcall);
  if (region_type == NULL) return -1;
  if (PyModule_AddObject(module, "Region", region_type) != 0) {
    Py_DECREF(region_type);
    return -1;
  }
  if (add_int(module, "OK", SW_OK) || add_int(module, "DROPPED", SW_DROPPED) ||
      add_int(module, "DISABLED", SW_DISABLED) ||
      add_int(module, "ERR_ALREADY_STARTED", SW_ERR_ALREADY_STARTED) ||
      add_int(module, "STREAM_DEVICE_WIDE", (long)SW_STREAM_DEVICE_WIDE) ||
      add_int(module, "MAX_DEPTH", kSwpyMaxDepth) || add_int(module, "FASTCALL", fastcall)) {
    return -1;
  }
  return 0;
}

static PyModuleDef_Slot native_slots[] = {
    {Py_mod_exec, SW_SLOT_FN(native_exec)},
    {0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "stallwatch._native",
    .m_doc = "Binding of the stallwatch agent's public C ABI.",
    .m_size = 0,
    .m_methods = NULL,
    .m_slots = native_slots,
};

PyMODINIT_FUNC PyInit__native(void) {
  return PyModuleDef_Init(&native_module);
}
