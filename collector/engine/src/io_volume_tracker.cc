// SPDX-License-Identifier: MIT
#include "io_volume_tracker.h"

#include <algorithm>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

IoCallNames IoCallNames::intern(NameTable& names) {
  IoCallNames out;
  out.posix = names.intern("POSIX");
  out.stdio = names.intern("STDIO");
  out.file_mark = names.intern("posix_file");
  for (std::size_t i = 0; i < kReads.size(); ++i)
    out.reads[i] = names.intern(kReads[i]);
  for (std::size_t i = 0; i < kWrites.size(); ++i)
    out.writes[i] = names.intern(kWrites[i]);
  return out;
}

IoDirection IoCallNames::classify(NameId name) const {
  if (std::find(reads.begin(), reads.end(), name) != reads.end()) return IoDirection::kRead;
  if (std::find(writes.begin(), writes.end(), name) != writes.end()) return IoDirection::kWrite;
  return IoDirection::kNone;
}

void IoVolumeTracker::add(std::int64_t ts, IoDirection direction, std::int64_t bytes) {
  if (direction == IoDirection::kNone) return;
  IoVolume& v = cells_.at(floor_div(ts, res_));
  const std::int64_t moved = std::max<std::int64_t>(bytes, 0);
  if (direction == IoDirection::kRead) {
    v.read_bytes += moved;
    v.read_ops += 1;
  } else {
    v.write_bytes += moved;
    v.write_ops += 1;
  }
}

}  // namespace stallwatch::collector::detail
