// SPDX-License-Identifier: MIT
#include "fetch_worker.h"

#include <algorithm>
#include <utility>

namespace stallwatch::tui {

FetchWorker::FetchWorker(EndpointUrl url, FetchOptions options)
    : url_(std::move(url)), options_(std::move(options)), thread_([this] { run(); }) {}

FetchWorker::~FetchWorker() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

void FetchWorker::submit(std::string key, std::string path) {
  {
    const std::lock_guard lock(mutex_);
    const auto same =
        std::find_if(queue_.begin(), queue_.end(), [&](const Request& r) { return r.key == key; });
    if (same != queue_.end()) {
      same->path = std::move(path);
    } else {
      queue_.push_back({std::move(key), std::move(path)});
    }
  }
  wake_.notify_one();
}

std::vector<FetchDone> FetchWorker::take() {
  const std::lock_guard lock(mutex_);
  return std::exchange(done_, {});
}

bool FetchWorker::pending(const std::string& key) const {
  const std::lock_guard lock(mutex_);
  if (running_key_ == key) return true;
  return std::any_of(queue_.begin(), queue_.end(), [&](const Request& r) { return r.key == key; });
}

void FetchWorker::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Request request = std::move(queue_.front());
    queue_.pop_front();
    running_key_ = request.key;
    lock.unlock();
    HttpResult result = http_fetch(url_, request.path, options_);
    lock.lock();
    running_key_.clear();
    done_.push_back({std::move(request.key), std::move(request.path), std::move(result)});
  }
}

}  // namespace stallwatch::tui
