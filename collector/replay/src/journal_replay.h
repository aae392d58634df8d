// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace stallwatch::collector {

// `stallwatch replay DIR/*.swj`: the batches a stallwatchd journaled, sent
// again into a daemon through the same waiting PUSH sender as trace replay.
// Each frame is decoded, its times (events, sent_at, the process start)
// shifted by one offset (so that the first record is received "now" when
// paced, the last one at max speed), and encoded again; sources, sequence numbers and drop counts
// are kept, so the daemon shows what the live one showed. Files are read in the order given (the
// shell sorts segment names oldest first). A record that is not intact is reported with its file
// and offset, counted and skipped; the rest is replayed. `speed` 0 sends as fast as the daemon
// takes it, N > 0 keeps the receive times' spacing divided by N. Returns 0 when everything readable
// was handed to the daemon, 1 when a file cannot be read or the daemon does
// not take the data. One thread.
struct JournalReplay {
  std::vector<std::string> files;
  double speed = 1.0;
  std::string endpoint;
  int timeout_ms = 10'000;
};

int replay_journals(const JournalReplay& options, std::ostream& out, std::ostream& err);

}  // namespace stallwatch::collector
