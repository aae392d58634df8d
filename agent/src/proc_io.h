// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallwatch::agent {

// The process's I/O totals from /proc/self/io: `rchar` counts every byte
// read through read-like calls (page cache included), `read_bytes` the bytes
// the process made the kernel fetch from storage, page faults of mmap'ed
// files included.
struct ProcIo {
  std::int64_t rchar = 0;
  std::int64_t read_bytes = 0;
};

// Reads /proc/self/io; false when it is absent or unreadable (no
// CONFIG_TASK_IO_ACCOUNTING, a restricted /proc). Two system calls and a
// parse: for the sender thread, never for recording threads.
bool read_proc_io(ProcIo* out) noexcept;

// Parses the text of /proc/self/io; false unless both fields are there.
bool parse_proc_io(const char* text, ProcIo* out) noexcept;

}  // namespace stallwatch::agent
