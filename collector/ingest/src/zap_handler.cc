// SPDX-License-Identifier: MIT
#include "zap_handler.h"

#include <zmq.h>

#include <cstdint>
#include <cstring>

namespace stallwatch::collector::detail {
namespace {

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";
constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kZ85KeyChars = 40;

// A request's frames: version, request id, domain, address, identity,
// mechanism, then the mechanism's credentials (CURVE: the client's key).
enum Frame : std::size_t {
  kVersion = 0,
  kRequestId = 1,
  kAddress = 3,
  kMechanism = 5,
  kCredentials = 6,
};

// Receives one whole multipart message; false when none is waiting.
bool receive_request(void* socket, std::vector<std::string>& frames) {
  frames.clear();
  zmq_msg_t part;
  zmq_msg_init(&part);
  bool more = true;
  while (more) {
    if (zmq_msg_recv(&part, socket, frames.empty() ? ZMQ_DONTWAIT : 0) < 0) {
      zmq_msg_close(&part);
      return !frames.empty();
    }
    frames.emplace_back(static_cast<const char*>(zmq_msg_data(&part)), zmq_msg_size(&part));
    more = zmq_msg_more(&part) != 0;
  }
  zmq_msg_close(&part);
  return true;
}

void send_reply(void* socket, const std::string& request_id, bool ok) {
  const std::string parts[] = {"1.0", request_id, ok ? "200" : "400", ok ? "OK" : "key not allowed",
                               "",    ""};
  const std::size_t n = std::size(parts);
  for (std::size_t i = 0; i < n; ++i) {
    zmq_send(socket, parts[i].data(), parts[i].size(), i + 1 < n ? ZMQ_SNDMORE : 0);
  }
}

std::string z85(const std::string& key) {
  char text[kZ85KeyChars + 1] = {};
  if (key.size() != kKeyBytes ||
      zmq_z85_encode(text, reinterpret_cast<const std::uint8_t*>(key.data()), key.size()) ==
          nullptr) {
    return "(no CURVE key)";
  }
  return text;
}

}  // namespace

ZapHandler::ZapHandler(void* context, const std::vector<std::string>& allowed_keys) {
  for (const std::string& key : allowed_keys) {
    std::uint8_t bytes[kKeyBytes];
    if (key.size() != kZ85KeyChars || zmq_z85_decode(bytes, key.c_str()) == nullptr) {
      error_ = "allow-list: '" + key + "' is not a Z85 public key";
      return;
    }
    allowed_.emplace(reinterpret_cast<const char*>(bytes), kKeyBytes);
  }
  socket_ = zmq_socket(context, ZMQ_REP);
  const int linger = 0;
  if (socket_ == nullptr || zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger)) != 0 ||
      zmq_bind(socket_, kZapEndpoint) != 0) {
    error_ = std::string("cannot start the allow-list handler: ") + zmq_strerror(zmq_errno());
  }
}

ZapHandler::~ZapHandler() {
  if (socket_ != nullptr) zmq_close(socket_);
}

bool ZapHandler::allowed(const std::vector<std::string>& request) {
  const bool curve = request.size() > kCredentials && request[kMechanism] == "CURVE";
  if (curve && allowed_.count(request[kCredentials]) > 0) return true;
  last_refused_ = (curve ? z85(request[kCredentials]) : "(no CURVE key)") + " from " +
                  (request.size() > kAddress ? request[kAddress] : std::string("?"));
  return false;
}

void ZapHandler::answer() {
  if (socket_ == nullptr || !error_.empty()) return;
  std::vector<std::string> request;
  while (receive_request(socket_, request)) {
    if (request.size() <= kRequestId || request[kVersion] != "1.0") {
      // Not a ZAP request ZeroMQ would send; a REP socket must still reply.
      send_reply(socket_, request.size() > kRequestId ? request[kRequestId] : std::string(), false);
      continue;
    }
    send_reply(socket_, request[kRequestId], allowed(request));
  }
}

}  // namespace stallwatch::collector::detail
