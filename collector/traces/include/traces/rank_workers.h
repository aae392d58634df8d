// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace stallwatch::collector {

// A bounded pool of reading threads for one analysis: runs job(index, worker)
// once for every index of `order`, taken in that order by whichever of the
// `threads` workers is free (so a caller that puts its biggest ranks first
// finishes soonest). A job returning false, or throwing, makes the workers
// take no further index; the exception's message is kept in error().
// `worker_done(worker)` runs on each worker thread after its last job.
//
// The constructor starts the threads; join() (or the destructor) waits for
// them. Owns its threads; the caller owns everything the jobs touch and must
// keep it alive until join() returns.
class RankWorkers {
 public:
  using Job = std::function<bool(std::size_t index, std::size_t worker)>;
  using WorkerDone = std::function<void(std::size_t worker)>;

  RankWorkers(std::vector<std::size_t> order, std::size_t threads, Job job,
              WorkerDone worker_done = {});
  ~RankWorkers();
  RankWorkers(const RankWorkers&) = delete;
  RankWorkers& operator=(const RankWorkers&) = delete;

  void join();
  // The first exception a job threw ("" when none); valid after join().
  const std::string& error() const { return error_; }

 private:
  void run(std::size_t worker);

  std::vector<std::size_t> order_;
  Job job_;
  WorkerDone worker_done_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::mutex error_mutex_;
  std::string error_;
  std::vector<std::thread> threads_;
};

// How many CPUs this process may run on (its affinity mask), at least 1.
std::size_t available_cpus();

}  // namespace stallwatch::collector
