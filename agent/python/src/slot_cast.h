// SPDX-License-Identifier: MIT
#pragma once

/* CPython's type and module slots store functions as void*. ISO C has no such
 * conversion; GCC and Clang accept it as an extension, which __extension__
 * states explicitly so -Wpedantic stays quiet. */
#define SW_SLOT_FN(fn) (__extension__(void*)(fn))

/* The reverse: a slot read back with PyType_GetSlot, as function type `type`. */
#define SW_SLOT_AS(type, ptr) (__extension__(type)(ptr))
