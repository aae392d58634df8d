// SPDX-License-Identifier: MIT
#include "tree/comm_calls_delta.h"

#include <cstddef>
#include <iterator>

namespace stallwatch::collector {

CommCallsDelta diff_comm_calls(const std::vector<CommCall>& sent, std::uint64_t sent_tick,
                               const std::vector<CommCall>& calls) {
  CommCallsDelta d;
  // The first call sent with the times of the first call now: what went
  // before it has left the list.
  std::size_t drop = 0;
  if (!calls.empty()) {
    while (drop < sent.size() &&
           (sent[drop].start_ns != calls[0].start_ns || sent[drop].end_ns != calls[0].end_ns)) {
      ++drop;
    }
  }
  if (drop == sent.size()) {
    d.tail = calls;
    return d;
  }
  const std::size_t left = sent.size() - drop;
  std::size_t front = 0;
  while (front < calls.size() && front < left && calls[front] != sent[drop + front])
    ++front;
  std::size_t keep = 0;
  while (front + keep < calls.size() && front + keep < left &&
         calls[front + keep] == sent[drop + front + keep]) {
    ++keep;
  }
  d.base = sent_tick;
  d.drop = static_cast<std::uint32_t>(drop);
  d.front.assign(calls.begin(), calls.begin() + static_cast<std::ptrdiff_t>(front));
  d.keep = static_cast<std::uint32_t>(keep);
  d.tail.assign(calls.begin() + static_cast<std::ptrdiff_t>(front + keep), calls.end());
  return d;
}

bool apply_comm_calls(const CommCallsDelta& delta, std::vector<CommCall>& calls) {
  if (delta.base == 0) {
    if (delta.drop != 0 || delta.keep != 0) return false;
    calls = delta.front;
    calls.insert(calls.end(), delta.tail.begin(), delta.tail.end());
    return true;
  }
  const std::size_t from = std::size_t{delta.drop} + delta.front.size();
  if (from + delta.keep > calls.size()) return false;
  std::vector<CommCall> out;
  out.reserve(delta.front.size() + delta.keep + delta.tail.size());
  out.insert(out.end(), delta.front.begin(), delta.front.end());
  const auto kept = calls.begin() + static_cast<std::ptrdiff_t>(from);
  out.insert(out.end(), kept, kept + delta.keep);
  out.insert(out.end(), delta.tail.begin(), delta.tail.end());
  calls = std::move(out);
  return true;
}

CommCallsDelta SentCommCalls::next(const RankSnapshot& rank, std::uint64_t tick) {
  Key key{rank.job, rank.rank};
  CommCallsDelta d;
  const auto it = sent_.find(key);
  const bool whole = (tick + static_cast<std::uint32_t>(rank.rank)) % kWholeEvery == 0;
  if (it != sent_.end() && it->second.tick != 0 && !whole) {
    d = diff_comm_calls(it->second.calls, it->second.tick, rank.comm_calls);
  } else {
    d.tail = rank.comm_calls;
  }
  next_[std::move(key)] = Sent{tick, rank.comm_calls};
  return d;
}

void SentCommCalls::end_tick() {
  sent_.swap(next_);
  next_.clear();
}

void SentCommCalls::clear() {
  sent_.clear();
  next_.clear();
}

}  // namespace stallwatch::collector
