// SPDX-License-Identifier: MIT
#pragma once

/*
 * Region: the C base type of every stallwatch context manager
 * (stallwatch._native.Region; the `ai` nodes and dft_fn subclass it).
 *
 * A Region names one (category, name) pair. `with region:` opens an agent
 * region in __enter__ and closes it in __exit__; both are C methods
 * (METH_NOARGS / METH_VARARGS), and the tokens live on the calling thread's
 * RegionStack, so one Region object may be entered from many threads at once
 * and re-entered recursively. The names are interned lazily, on the first
 * enter, so that importing a module that builds Regions never starts the
 * agent (a data-loader worker must choose its role first).
 *
 * Threading: all methods run with the GIL held (the attributes are plain
 * fields). Nothing here raises into the caller's `with` block: a disabled
 * Region, a stopped agent or a full stack make enter/exit no-ops.
 */

#include <Python.h>

/* Creates the Region heap type, with a METH_FASTCALL __exit__ when `fastcall`
 * (CPython >= 3.10), else METH_VARARGS (calling_convention.h). Returns a new
 * reference, or NULL with an exception set. */
PyObject* swpy_region_type_new(int fastcall);
