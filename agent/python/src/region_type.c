// SPDX-License-Identifier: MIT
#include "region_type.h"

#include <stallwatch/stallwatch.h>

#include "calling_convention.h"
#include "region_stack.h"
#include "slot_cast.h"
#include "utf8_view.h"

typedef struct {
  PyObject_HEAD PyObject* cat;
  PyObject* name;
  uint64_t id;
  sw_name_t cat_id;
  sw_name_t name_id;
  int interned;
  int enabled;
} RegionObject;

static uint64_t next_region_id = 1;

static RegionObject* as_region(PyObject* self) {
  return (RegionObject*)self;
}

static sw_name_t intern_str(PyObject* str) {
  Utf8View utf8;
  if (!utf8_view_of(str, &utf8)) {
    PyErr_Clear();
    return 0;
  }
  sw_name_t id = sw_intern_n(utf8.data, (size_t)utf8.size);
  utf8_view_release(&utf8);
  return id;
}

static void intern_names(RegionObject* region) {
  region->interned = 1;
  region->cat_id = intern_str(region->cat);
  region->name_id = intern_str(region->name);
}

static PyObject* region_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  (void)args;
  (void)kwargs;
  allocfunc alloc = SW_SLOT_AS(allocfunc, PyType_GetSlot(type, Py_tp_alloc));
  PyObject* self = alloc(type, 0);
  if (self == NULL) return NULL;
  RegionObject* region = as_region(self);
  region->id = next_region_id++;
  region->enabled = 1;
  return self;
}

static int region_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static char* keywords[] = {"cat", "name", "enabled", NULL};
  PyObject* cat = NULL;
  PyObject* name = Py_None;
  int enabled = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|Op:Region", keywords, &cat, &name, &enabled)) {
    return -1;
  }
  if (name == Py_None) name = cat;
  if (!PyUnicode_Check(name)) {
    PyErr_SetString(PyExc_TypeError, "Region name must be a str or None");
    return -1;
  }
  RegionObject* region = as_region(self);
  PyObject* old_cat = region->cat;
  PyObject* old_name = region->name;
  Py_INCREF(cat);
  Py_INCREF(name);
  region->cat = cat;
  region->name = name;
  Py_XDECREF(old_cat);
  Py_XDECREF(old_name);
  region->interned = 0;
  region->cat_id = 0;
  region->name_id = 0;
  region->enabled = enabled;
  return 0;
}

static void region_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  RegionObject* region = as_region(self);
  Py_CLEAR(region->cat);
  Py_CLEAR(region->name);
  freefunc free_fn = SW_SLOT_AS(freefunc, PyType_GetSlot(type, Py_tp_free));
  free_fn(self);
  Py_DECREF(type);
}

static PyObject* region_enter(PyObject* self, PyObject* unused) {
  (void)unused;
  RegionObject* region = as_region(self);
  if (region->enabled) {
    if (!region->interned) intern_names(region);
    if (region->name_id != 0 && !swpy_stack_full()) {
      sw_region_t token = sw_region_begin(region->cat_id, region->name_id);
      if (token != 0) swpy_stack_push(region->id, token);
    }
  }
  Py_INCREF(self);
  return self;
}

static PyObject* region_exit(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)args;
  (void)nargs;
  sw_region_t token = swpy_stack_pop(as_region(self)->id);
  if (token != 0) sw_region_end(token);
  Py_RETURN_NONE;
}

static PyObject* region_exit_exhausted(PyObject* self, PyObject* unused) {
  (void)unused;
  sw_region_t token = swpy_stack_pop(as_region(self)->id);
  if (token != 0) sw_region_end_value(token, SW_END_LOOP_EXHAUSTED);
  Py_RETURN_NONE;
}

static PyObject* region_active(PyObject* self, PyObject* unused) {
  (void)unused;
  return PyBool_FromLong(swpy_stack_contains(as_region(self)->id));
}

static PyObject* region_ids(PyObject* self, PyObject* unused) {
  (void)unused;
  RegionObject* region = as_region(self);
  if (!region->interned) intern_names(region);
  return Py_BuildValue("(II)", (unsigned int)region->cat_id, (unsigned int)region->name_id);
}

static PyObject* region_get_cat(PyObject* self, void* closure) {
  (void)closure;
  PyObject* cat = as_region(self)->cat;
  if (cat == NULL) cat = Py_None;
  Py_INCREF(cat);
  return cat;
}

static PyObject* region_get_name(PyObject* self, void* closure) {
  (void)closure;
  PyObject* name = as_region(self)->name;
  if (name == NULL) name = Py_None;
  Py_INCREF(name);
  return name;
}

static PyObject* region_get_enabled(PyObject* self, void* closure) {
  (void)closure;
  return PyBool_FromLong(as_region(self)->enabled);
}

static int region_set_enabled(PyObject* self, PyObject* value, void* closure) {
  (void)closure;
  if (value == NULL) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete 'enabled'");
    return -1;
  }
  int truth = PyObject_IsTrue(value);
  if (truth < 0) return -1;
  as_region(self)->enabled = truth;
  return 0;
}

static PyObject* region_exit_tuple(PyObject* self, PyObject* args) {
  (void)args;
  return region_exit(self, NULL, 0);
}

#define SW_REGION_EXIT_DOC \
  "Closes this thread's innermost open region of self; never suppresses exceptions."
#define SW_REGION_OTHER_METHODS                                                                    \
  {"__enter__", region_enter, METH_NOARGS, "Opens the region on this thread; returns self."},      \
      {"_exit_exhausted", region_exit_exhausted, METH_NOARGS,                                      \
       "Closes this thread's innermost open region of self as the wait that ended its loop "       \
       "(END_LOOP_EXHAUSTED: no item came)."},                                                     \
      {"active", region_active, METH_NOARGS, "True when this thread has an open region of self."}, \
      {"_ids", region_ids, METH_NOARGS,                                                            \
       "(cat_id, name_id) as interned by the agent; 0 when not recorded."},

static PyMethodDef region_methods_fastcall[] = {
    {"__exit__", SWPY_FASTCALL_FN(region_exit), METH_FASTCALL, SW_REGION_EXIT_DOC},
    SW_REGION_OTHER_METHODS{NULL, NULL, 0, NULL},
};

static PyMethodDef region_methods_varargs[] = {
    {"__exit__", region_exit_tuple, METH_VARARGS, SW_REGION_EXIT_DOC},
    SW_REGION_OTHER_METHODS{NULL, NULL, 0, NULL},
};

static PyGetSetDef region_getset[] = {
    {"cat", region_get_cat, NULL, "Category (str).", NULL},
    {"name", region_get_name, NULL, "Event name (str).", NULL},
    {"enabled", region_get_enabled, region_set_enabled, "Whether entering records a region.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot region_slots[] = {
    {Py_tp_new, SW_SLOT_FN(region_new)},
    {Py_tp_init, SW_SLOT_FN(region_init)},
    {Py_tp_dealloc, SW_SLOT_FN(region_dealloc)},
    {Py_tp_methods, region_methods_fastcall},
    {Py_tp_getset, region_getset},
    {Py_tp_doc,
     "Region(cat, name=None, enabled=True)\n\n"
     "A named region: `with Region('compute', 'forward'):` records one region of\n"
     "category 'compute' named 'forward'. Thread-safe and re-entrant."},
    {0, NULL},
};

static PyType_Spec region_spec = {
    .name = "stallwatch._native.Region",
    .basicsize = sizeof(RegionObject),
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = region_slots,
};

PyObject* swpy_region_type_new(int fastcall) {
  for (PyType_Slot* slot = region_slots; slot->slot != 0; ++slot) {
    if (slot->slot == Py_tp_methods) {
      slot->pfunc = fastcall ? region_methods_fastcall : region_methods_varargs;
    }
  }
  return PyType_FromSpec(&region_spec);
}
