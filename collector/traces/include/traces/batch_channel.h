// SPDX-License-Identifier: MIT
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/decoded_batch.h"

namespace stallwatch::collector {

// One agent batch on its way from a reading thread to the engine's thread.
// Its name ids are the producer's own (see ShippingSink); `new_names` are the
// producer's names first used since its previous batch, in id order starting
// at `first_new_name`, so the consumer can map ids without sharing a table.
struct ShippedBatch {
  std::size_t producer = 0;
  NameId first_new_name = 0;
  std::vector<std::string> new_names;
  DecodedBatch batch;
};

// A bounded hand-off of ShippedBatch from several producer threads to one
// consumer thread. The channel owns a fixed number of slots, recycled: a
// producer waits in acquire() while every slot is queued or being consumed,
// so memory stays at `slots` batches whatever the trace size. Batches of one
// producer are consumed in the order they were pushed.
//
// Thread-safe. Every producer must call done() exactly once (after its last
// push); the consumer pops until pop() returns nullptr and releases every
// batch it popped.
class BatchChannel {
 public:
  BatchChannel(std::size_t producers, std::size_t slots);
  BatchChannel(const BatchChannel&) = delete;
  BatchChannel& operator=(const BatchChannel&) = delete;

  // Producer side.
  ShippedBatch* acquire();
  void push(ShippedBatch* batch);
  void done();

  // Consumer side: the next batch; nullptr once every producer is done and
  // every batch has been popped.
  ShippedBatch* pop();
  void release(ShippedBatch* batch);

 private:
  std::mutex mutex_;
  std::condition_variable ready_cv_;
  std::condition_variable free_cv_;
  std::vector<std::unique_ptr<ShippedBatch>> slots_;
  std::vector<ShippedBatch*> free_;
  std::deque<ShippedBatch*> ready_;
  std::size_t producers_left_;
};

}  // namespace stallwatch::collector
