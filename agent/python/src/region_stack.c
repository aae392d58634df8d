// SPDX-License-Identifier: MIT
#include "region_stack.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct {
  uint64_t owner;
  sw_region_t region;
} StackEntry;

typedef struct {
  int depth;
  StackEntry entries[kSwpyMaxDepth];
} RegionStack;

static _Thread_local RegionStack tls_stack;
static atomic_uint_fast64_t overflows;
static atomic_uint_fast64_t unmatched;
static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static int fork_handler_status;

int swpy_stack_full(void) {
  if (tls_stack.depth < kSwpyMaxDepth) return 0;
  atomic_fetch_add_explicit(&overflows, 1, memory_order_relaxed);
  return 1;
}

int swpy_stack_push(uint64_t owner, sw_region_t region) {
  RegionStack* stack = &tls_stack;
  if (stack->depth >= kSwpyMaxDepth) {
    atomic_fetch_add_explicit(&overflows, 1, memory_order_relaxed);
    return 0;
  }
  stack->entries[stack->depth].owner = owner;
  stack->entries[stack->depth].region = region;
  stack->depth++;
  return 1;
}

sw_region_t swpy_stack_pop(uint64_t owner) {
  RegionStack* stack = &tls_stack;
  for (int i = stack->depth - 1; i >= 0; --i) {
    if (stack->entries[i].owner != owner) continue;
    sw_region_t region = stack->entries[i].region;
    for (int j = i + 1; j < stack->depth; ++j)
      stack->entries[j - 1] = stack->entries[j];
    stack->depth--;
    return region;
  }
  atomic_fetch_add_explicit(&unmatched, 1, memory_order_relaxed);
  return 0;
}

int swpy_stack_contains(uint64_t owner) {
  const RegionStack* stack = &tls_stack;
  for (int i = stack->depth - 1; i >= 0; --i) {
    if (stack->entries[i].owner == owner) return 1;
  }
  return 0;
}

int swpy_stack_depth(void) {
  return tls_stack.depth;
}

uint64_t swpy_stack_overflows(void) {
  return atomic_load_explicit(&overflows, memory_order_relaxed);
}

uint64_t swpy_stack_unmatched(void) {
  return atomic_load_explicit(&unmatched, memory_order_relaxed);
}

static void forget_parent_regions(void) {
  tls_stack.depth = 0;
}

static void register_fork_handler(void) {
  fork_handler_status = pthread_atfork(NULL, NULL, forget_parent_regions);
}

int swpy_stack_install_fork_handler(void) {
  pthread_once(&fork_handler_once, register_fork_handler);
  return fork_handler_status;
}
