// SPDX-License-Identifier: MIT
#include "training_progress.h"

namespace stallwatch::collector::detail {

void TrainingProgress::add_mark(NameId name, std::int64_t ts, std::int64_t value,
                                std::int64_t start_ns) {
  if (name == step_mark_) {
    if (ts >= start_ns) steps_.add_mark(ts);
    if (ts >= step_ts_) {
      step_ts_ = ts;
      step_ = value;
    }
  } else if (name == epoch_start_ && ts >= epoch_ts_) {
    epoch_ts_ = ts;
    epoch_ = value;
  }
}

}  // namespace stallwatch::collector::detail
