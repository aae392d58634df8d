// SPDX-License-Identifier: MIT
#pragma once

// Runs the TUI's on-demand HTTP GETs (history seeds, timelines) on one
// background thread so the UI thread never waits on the network. Requests
// carry a key; a request whose key is already queued replaces it, so a user
// holding `j` does not pile up timeline fetches for ranks no longer shown.
//
// Threads: submit(), take() and the destructor are for the UI thread; the
// worker thread only calls http_fetch().

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "endpoint_url.h"
#include "http_fetch.h"

namespace stallwatch::tui {

struct FetchDone {
  std::string key;
  std::string path;
  HttpResult result;
};

class FetchWorker {
 public:
  FetchWorker(EndpointUrl url, FetchOptions options);
  ~FetchWorker();
  FetchWorker(const FetchWorker&) = delete;
  FetchWorker& operator=(const FetchWorker&) = delete;

  void submit(std::string key, std::string path);
  // Finished requests since the last call, in completion order.
  std::vector<FetchDone> take();
  // Whether a request with this key is queued or running.
  bool pending(const std::string& key) const;

 private:
  struct Request {
    std::string key;
    std::string path;
  };

  void run();

  const EndpointUrl url_;
  const FetchOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Request> queue_;
  std::string running_key_;
  std::vector<FetchDone> done_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace stallwatch::tui
