// SPDX-License-Identifier: MIT
#pragma once

/*
 * Utf8View: the UTF-8 bytes of a Python str, for the agent's C ABI.
 *
 * The stable ABI of CPython 3.8 has no PyUnicode_AsUTF8AndSize (it came to the
 * limited API in 3.10), so the bytes come from PyUnicode_AsUTF8String: the
 * view holds that bytes object and must be released. Used where a string
 * crosses once (interning a name, an option, a GPU mode), never per event.
 */

#include <Python.h>

typedef struct {
  PyObject* bytes;
  const char* data;
  Py_ssize_t size;
} Utf8View;

/* Fills `view` from `str`. Returns 1, or 0 with an exception set (not a str,
 * or not encodable). */
static inline int utf8_view_of(PyObject* str, Utf8View* view) {
  view->bytes = NULL;
  view->data = NULL;
  view->size = 0;
  if (str == NULL || !PyUnicode_Check(str)) {
    PyErr_SetString(PyExc_TypeError, "expected a str");
    return 0;
  }
  PyObject* bytes = PyUnicode_AsUTF8String(str);
  if (bytes == NULL) return 0;
  char* data = NULL;
  if (PyBytes_AsStringAndSize(bytes, &data, &view->size) != 0) {
    Py_DECREF(bytes);
    return 0;
  }
  view->bytes = bytes;
  view->data = data;
  return 1;
}

static inline void utf8_view_release(Utf8View* view) {
  Py_CLEAR(view->bytes);
  view->data = NULL;
  view->size = 0;
}
