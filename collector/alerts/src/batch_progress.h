// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace stallwatch::collector {

// What a sink that makes several requests per batch (one per alert, or one
// per alert name) already delivered of a batch that failed part-way, so that
// the worker's retry of the same batch sends only the rest: a page that went
// through is never sent twice. A batch is named by the keys of its requests
// (their bodies, or another rendering that differs whenever the request
// would); a call with other keys starts afresh. Sender thread only.
class BatchProgress {
 public:
  // Starts delivering the requests named by `keys`; continues the last
  // unfinished batch when the keys are the same.
  void begin(std::vector<std::string> keys);
  // Whether request `i` of the current batch already went through.
  bool delivered(std::size_t i) const { return i < done_.size() && done_[i]; }
  void mark_delivered(std::size_t i);
  // The whole batch went through: the next call starts afresh.
  void finish();

 private:
  std::vector<std::string> keys_;
  std::vector<bool> done_;
};

}  // namespace stallwatch::collector
