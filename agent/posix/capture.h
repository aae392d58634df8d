// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "fd_table.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::posix {

// Every interposed call, in the order of kOpNames (capture.cc): the region
// names are the C library's function names, as DFTracer writes them.
enum class Op : std::uint8_t {
  kOpen,
  kOpen64,
  kOpenat,
  kOpenat64,
  kCreat,
  kCreat64,
  kClose,
  kRead,
  kPread,
  kPread64,
  kReadv,
  kPreadv,
  kPreadv64,
  kWrite,
  kPwrite,
  kPwrite64,
  kPwritev,
  kPwritev64,
  kLseek,
  kLseek64,
  kStat,
  kStat64,
  kFstat,
  kFstat64,
  kStatx,
  kMmap,
  kMmap64,
  kMunmap,
  kFsync,
  kFdatasync,
  kFopen,
  kFopen64,
  kFread,
  kFwrite,
  kFclose,
  kCount
};

// Process-wide capture state shared by the wrappers (posix_calls.cc,
// stdio_calls.cc).
//
// Recursion: `in_capture` is set on a thread for as long as it is inside the
// capture (recording, interning, starting the agent lazily), and every
// wrapper called while it is set goes straight to the C library. The agent's
// own threads only use descriptors they did not open by path (sockets,
// eventfds) or paths the filter excludes (/proc, /sys, its socket
// directories), so they are never traced either.
//
// Names (the categories POSIX, STDIO and posix_file and the function names)
// are interned on the first traced call, not at load time: a preloaded
// process that never touches a data file never starts an agent.
constinit inline thread_local bool in_capture [[gnu::tls_model("initial-exec")]] = false;

extern FdTable fd_table;

// The interned ids of the categories and calls, written once by
// intern_names() before `state` becomes kReady (release) and only read
// after. Inline readers: a traced call makes no call to reach them.
struct CallNames {
  enum State : int { kNotYet = 0, kInterning = 1, kReady = 2, kOff = 3 };
  std::atomic<int> state{kNotYet};
  sw_name_t category[2] = {};  // POSIX, STDIO
  sw_name_t op[static_cast<std::size_t>(Op::kCount)] = {};
};
extern constinit CallNames call_names;

// Interns the names (the first caller does; cold). False when the agent is
// disabled or another thread is interning right now. Keeps errno.
[[gnu::cold, gnu::noinline]] bool intern_names() noexcept;

// The category (POSIX, or STDIO for the stream calls) and name ids of `op`;
// 0 until names_ready().
inline sw_name_t op_category(Op op) noexcept {
  return call_names.category[op >= Op::kFopen ? 1 : 0];
}
inline sw_name_t op_name(Op op) noexcept {
  return call_names.op[static_cast<std::size_t>(op)];
}

// True once the names are interned; the first caller interns them. False
// when the agent is disabled or another thread is interning right now.
// Keeps errno.
inline bool names_ready() noexcept {
  const int state = call_names.state.load(std::memory_order_acquire);
  if (state == CallNames::kReady) [[likely]]
    return true;
  if (state != CallNames::kNotYet) return false;
  return intern_names();
}

// The name id of a file about to be opened, 0 when it is not traced:
// `path` (relative to `dirfd` or the working directory) is resolved and
// checked against the filter, then named (FileNames). Every traced open
// records a mark (cat posix_file, name the path, value its id), so that the
// collector can read region values back to paths in every process, forked
// children included; a file that goes to the "other" bucket also records
// the counter (posix_file, other_files) of files folded so far. Call with
// in_capture set; keeps errno.
std::uint32_t open_target(int dirfd, const char* path) noexcept;

// Whether a path-only call (stat, statx) on `path` is traced. Same rules.
bool path_traced(int dirfd, const char* path) noexcept;

// Records a mark (cat POSIX, name of `op`) with `value`. Keeps errno.
void record_mark(Op op, std::int64_t value) noexcept;

// Times `call` whole as one region (cat POSIX or STDIO, name of `op`, value
// `value(result)`, subject `file`: sw_call_end) unless this thread is already
// inside the capture; the result and errno the caller sees are exactly the
// call's. Never inlined: a wrapper's untraced path is then only the table
// lookup and a tail call to the C library, with no frame of its own.
// names_ready(), sw_call_start() and sw_call_end() never change errno, so
// the call's errno goes back as it is, without a save and restore.
template <typename Call, typename Value>
[[gnu::noinline]] auto traced_call(Op op, std::uint32_t file, Call&& call, Value&& value) noexcept {
  if (in_capture) return call();
  in_capture = true;
  const std::int64_t start = names_ready() ? sw_call_start() : 0;
  auto result = call();
  if (start != 0) sw_call_end(op_category(op), op_name(op), start, value(result), file);
  in_capture = false;
  return result;
}

// An open of `path` (relative to `dirfd`) by `call`, whose result `fd_of`
// turns into a descriptor (negative: failed). A traced file's open is a
// region once the agent runs; the open that would start the agent is not
// timed, and starts it only when it succeeded (an interpreter probing for
// files that do not exist starts nothing). Every open that returns a
// descriptor sets its fd_table entry, so a number reused after a close the
// wrappers never saw is not mistaken for a traced one.
template <typename Call, typename FdOf>
inline auto open_traced(Op op, int dirfd, const char* path, Call&& call, FdOf&& fd_of) noexcept {
  if (in_capture) return call();
  in_capture = true;
  const bool running = sw_is_running() != 0;
  std::uint32_t file = running ? open_target(dirfd, path) : 0;
  const bool starts_agent = !running && path_traced(dirfd, path);
  in_capture = false;
  auto result = file != 0
                    ? traced_call(op, file, call, [](auto) noexcept -> std::int64_t { return 0; })
                    : call();
  const int fd = fd_of(result);
  if (fd >= 0 && starts_agent) {
    in_capture = true;
    file = open_target(dirfd, path);
    in_capture = false;
  }
  if (fd >= 0) fd_table.set(fd, file);
  return result;
}

// The END value of calls that move bytes: the bytes moved, 0 on error.
inline std::int64_t bytes_moved(long result) noexcept {
  return result > 0 ? result : 0;
}

}  // namespace stallwatch::posix
