// SPDX-License-Identifier: MIT
#pragma once

/*
 * RegionStack: the regions a thread has opened through the Python extension
 * and not yet closed, innermost last.
 *
 * Each entry pairs the opener's identity (a Region object's id) with the agent
 * token from sw_region_begin. Each thread has its own stack (thread-local
 * storage), so entering a context manager on one thread never sees another
 * thread's regions; the GIL is not needed for it. Closing searches from the
 * innermost entry, so re-entry of the same Region nests correctly and a
 * suspended generator that closes out of order still finds its own entry.
 *
 * The stack never allocates: it has kSwpyMaxDepth slots. A push past that is
 * refused and counted. In a forked child the forking thread's stack is
 * emptied (the regions belong to the parent); see swpy_stack_install_fork_handler.
 */

#include <stallwatch/stallwatch.h>
#include <stdint.h>

enum { kSwpyMaxDepth = 128 };

/* 1 when this thread's stack has no free slot (and counts the refusal). */
int swpy_stack_full(void);

/* Pushes (owner, region) on this thread's stack. 0 when full, else 1. */
int swpy_stack_push(uint64_t owner, sw_region_t region);

/* Removes this thread's innermost entry of `owner` and returns its region;
 * returns 0 (and counts an unmatched exit) when this thread has none. */
sw_region_t swpy_stack_pop(uint64_t owner);

/* 1 when `owner` has an open entry on this thread's stack. */
int swpy_stack_contains(uint64_t owner);

/* Number of open entries on this thread's stack. */
int swpy_stack_depth(void);

/* Pushes refused because the stack was full, process-wide. */
uint64_t swpy_stack_overflows(void);

/* Exits with no matching entry on the calling thread, process-wide. */
uint64_t swpy_stack_unmatched(void);

/* Registers (once) a pthread_atfork child handler that empties the forking
 * thread's stack. Returns 0 on success. */
int swpy_stack_install_fork_handler(void);
