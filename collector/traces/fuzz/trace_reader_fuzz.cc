// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as a trace file, read to the end by the
// dftracer reader (both dialects, plain or gzip) and by the Kineto reader
// (plain or gzip): the input is written to a .pfw and a .json file (".gz"
// appended when it starts with the gzip magic) under $TMPDIR or /tmp, and
// each is opened with open_trace_reader and drained. Sanitizers catch memory
// errors; on top, the target aborts when a reader yields an event whose end
// precedes its start or counts more malformed records than lines it could
// have read (seeds/gzip-of-many-malformed-lines.gz: such a gzip input, once
// counted against its compressed size).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "traces/trace_reader.h"

namespace {

std::string temp_dir() {
  static const std::string dir = [] {
    // TMPDIR=/dev/shm keeps the two files per input off the disk.
    const char* tmp = std::getenv("TMPDIR");
    std::string name = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                       "/stallwatch-trace-fuzz-XXXXXX";
    const char* made = ::mkdtemp(name.data());
    if (made == nullptr) std::abort();
    return std::string(made);
  }();
  return dir;
}

void drain(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  std::string error;
  auto reader = stallwatch::collector::open_trace_reader(path, error);
  if (!reader) return;
  stallwatch::collector::TraceEvent event;
  std::size_t events = 0;
  while (reader->next(event)) {
    if (event.dur_ns < 0) std::abort();
    ++events;
  }
  // Lines are counted in the inflated text, which a gzip input can make far
  // longer than the input itself.
  if (reader->stats().malformed > reader->stats().bytes + 1) std::abort();
  ::unlink(path.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const std::string suffix = gzip ? ".gz" : "";
  drain(temp_dir() + "/trace-1-of-2.pfw" + suffix, data, size);
  drain(temp_dir() + "/trace.json" + suffix, data, size);
  return 0;
}
