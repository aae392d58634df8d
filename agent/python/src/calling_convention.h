// SPDX-License-Identifier: MIT
#pragma once

/*
 * How the extension's functions take their arguments under the stable ABI of
 * CPython 3.8.
 *
 * METH_FASTCALL (the arguments as a C array, no tuple) joined the stable ABI
 * in 3.10, so the limited API of 3.8 does not declare it. CPython has
 * implemented it with this flag value and signature since 3.7, and from 3.10
 * on the stable ABI guarantees both. The extension therefore carries each
 * function that takes arguments twice: the METH_FASTCALL function, given to
 * interpreters of 3.10 or newer (swpy_use_fastcall), and a METH_VARARGS entry
 * point (SWPY_TUPLE_ENTRY) that passes the tuple's items to it as an array,
 * given to 3.8 and 3.9. The behaviour is the same; the tuple costs 3.8 and 3.9
 * some 40-90 ns per call.
 */

#include <Python.h>
#include <stdio.h>

#ifndef METH_FASTCALL
#define METH_FASTCALL 0x0080
#endif

enum { kSwpyMaxArgs = 5 };

/* A METH_FASTCALL function as a PyMethodDef's ml_meth. */
#define SWPY_FASTCALL_FN(fn) ((PyCFunction)(void (*)(void))(fn))

/* 1 when the running interpreter is CPython 3.10 or newer. */
static inline int swpy_use_fastcall(void) {
  int major = 0;
  int minor = 0;
  if (sscanf(Py_GetVersion(), "%d.%d", &major, &minor) != 2) return 0;
  return major > 3 || (major == 3 && minor >= 10);
}

/* The items of a METH_VARARGS call's tuple, borrowed, into `items`; their
 * number, or -1 with a TypeError beyond kSwpyMaxArgs. */
static inline Py_ssize_t swpy_tuple_items(PyObject* tuple, PyObject** items) {
  Py_ssize_t count = PyTuple_Size(tuple);
  if (count < 0) return -1;
  if (count > kSwpyMaxArgs) {
    PyErr_Format(PyExc_TypeError, "takes at most %d arguments (%zd given)", (int)kSwpyMaxArgs,
                 count);
    return -1;
  }
  for (Py_ssize_t i = 0; i < count; ++i)
    items[i] = PyTuple_GetItem(tuple, i);
  return count;
}

/* Defines fn_tuple, the METH_VARARGS entry point of the METH_FASTCALL function fn. */
#define SWPY_TUPLE_ENTRY(fn)                                     \
  static PyObject* fn##_tuple(PyObject* self, PyObject* tuple) { \
    PyObject* items[kSwpyMaxArgs];                               \
    Py_ssize_t count = swpy_tuple_items(tuple, items);           \
    return count < 0 ? NULL : fn(self, items, count);            \
  }
