// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace stallwatch::collector::detail {

// The allow-list of the CURVE socket: a ZAP handler (ZeroMQ's authentication
// protocol, RFC 27) bound at inproc://zeromq.zap.01 in the Receiver's
// context. It admits a CURVE client whose public key is on the list (status
// 200) and refuses every other request (400), remembering the last refused
// key and address for the log. Refusals are counted from the socket's
// monitor (PullSocket), not here.
//
// Only sockets with a ZAP domain ask it (the CURVE socket); the plaintext
// socket never does. Owned by the Receiver and answered from its thread; the
// context outlives it.
class ZapHandler {
 public:
  // `allowed_keys`: Z85 public keys. error() says which one is malformed.
  ZapHandler(void* context, const std::vector<std::string>& allowed_keys);
  ~ZapHandler();
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

  const std::string& error() const { return error_; }
  void* socket() const { return socket_; }

  // Answers every request waiting, without blocking.
  void answer();

  // "<Z85 key> from <address>" of the last client refused, or "".
  const std::string& last_refused() const { return last_refused_; }

 private:
  bool allowed(const std::vector<std::string>& request);

  void* socket_ = nullptr;
  std::set<std::string> allowed_;  // 32-byte binary keys
  std::string last_refused_;
  std::string error_;
};

}  // namespace stallwatch::collector::detail
