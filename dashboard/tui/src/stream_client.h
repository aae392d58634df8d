// SPDX-License-Identifier: MIT
#pragma once

// The TUI's WebSocket link to /api/v1/stream (docs/api.md). Owns one network
// thread that connects, subscribes to the job the user looks at, parses every
// message and keeps only the newest hello and tick for the UI thread. A lost
// or refused connection is retried with exponential backoff (250 ms doubling
// to 5 s) for as long as the client lives; it never gives up. An https://
// URL makes it wss://, verifying the collector's certificate and host name
// against `ca_file` (empty: the system's CAs).
//
// Threads: start(), stop(), subscribe(), take() and status() are called by
// the UI thread; everything else runs on the network thread. The UI thread
// never blocks on the network. Boost.Beast stays inside stream_client.cc.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api_model.h"
#include "endpoint_url.h"

namespace stallwatch::tui {

enum class LinkState : std::uint8_t { kConnecting, kLive, kReconnecting };

struct LinkStatus {
  LinkState state = LinkState::kConnecting;
  std::string error;  // the last failure, in words
  std::chrono::steady_clock::time_point retry_at{};
  std::uint64_t connections = 0;  // successful connects so far
};

// What arrived since the previous take(): the newest of each kind.
struct StreamInbox {
  std::optional<StreamHello> hello;
  std::optional<StreamTick> tick;
  std::uint64_t connection = 0;  // LinkStatus::connections when they arrived

  bool empty() const { return !hello && !tick; }
};

class StreamClient {
 public:
  StreamClient(EndpointUrl url, std::string token, std::string ca_file = {});
  ~StreamClient();
  StreamClient(const StreamClient&) = delete;
  StreamClient& operator=(const StreamClient&) = delete;

  void start();
  void stop();
  // The job whose detail each tick carries (nullopt: none). Kept across reconnects.
  void subscribe(std::optional<std::string> job);
  StreamInbox take();
  LinkStatus status() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stallwatch::tui
