// SPDX-License-Identifier: MIT
#include "traces/rank_workers.h"

#include <sched.h>

#include <exception>

namespace stallwatch::collector {

RankWorkers::RankWorkers(std::vector<std::size_t> order, std::size_t threads, Job job,
                         WorkerDone worker_done)
    : order_(std::move(order)), job_(std::move(job)), worker_done_(std::move(worker_done)) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (std::size_t w = 0; w < threads; ++w)
    threads_.emplace_back([this, w] { run(w); });
}

RankWorkers::~RankWorkers() {
  join();
}

void RankWorkers::join() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void RankWorkers::run(std::size_t worker) {
  while (!stop_.load(std::memory_order_relaxed)) {
    const std::size_t k = next_.fetch_add(1);
    if (k >= order_.size()) break;
    try {
      if (!job_(order_[k], worker)) stop_ = true;
    } catch (const std::exception& e) {
      std::lock_guard lock(error_mutex_);
      if (error_.empty()) error_ = e.what();
      stop_ = true;
    }
  }
  if (worker_done_) worker_done_(worker);
}

std::size_t available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<std::size_t>(n);
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

}  // namespace stallwatch::collector
