// SPDX-License-Identifier: MIT
#include "push_sender.h"

#include <zmq.h>

#include <cerrno>

namespace stallwatch::collector {

namespace {
constexpr int kHighWaterMark = 10000;  // frames queued before send() waits
}  // namespace

PushSender::PushSender(void* context, void* socket, std::string endpoint, int timeout_ms)
    : context_(context), socket_(socket), endpoint_(std::move(endpoint)), timeout_ms_(timeout_ms) {}

PushSender::~PushSender() {
  close(0);
}

std::unique_ptr<PushSender> PushSender::connect(const std::string& endpoint, int send_timeout_ms,
                                                std::string& error) {
  void* context = zmq_ctx_new();
  if (context == nullptr) {
    error = std::string("cannot create a ZeroMQ context: ") + zmq_strerror(zmq_errno());
    return nullptr;
  }
  void* socket = zmq_socket(context, ZMQ_PUSH);
  if (socket == nullptr) {
    error = std::string("cannot create a PUSH socket: ") + zmq_strerror(zmq_errno());
    zmq_ctx_term(context);
    return nullptr;
  }
  const int hwm = kHighWaterMark;
  const int immediate = 1;
  const int linger = 0;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(socket, ZMQ_IMMEDIATE, &immediate, sizeof immediate);
  zmq_setsockopt(socket, ZMQ_SNDTIMEO, &send_timeout_ms, sizeof send_timeout_ms);
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  if (zmq_connect(socket, endpoint.c_str()) != 0) {
    error = "cannot connect to " + endpoint + ": " + zmq_strerror(zmq_errno());
    zmq_close(socket);
    zmq_ctx_term(context);
    return nullptr;
  }
  return std::unique_ptr<PushSender>(new PushSender(context, socket, endpoint, send_timeout_ms));
}

std::string PushSender::send(std::span<const std::uint8_t> frame) {
  if (socket_ == nullptr) return "the socket is closed";
  for (;;) {
    if (zmq_send(socket_, frame.data(), frame.size(), 0) >= 0) {
      ++frames_;
      bytes_ += frame.size();
      return {};
    }
    const int e = zmq_errno();
    if (e == EINTR) continue;
    if (e == EAGAIN) {
      return "no collector took data at " + endpoint_ + " for " +
             std::to_string(timeout_ms_ / 1000) +
             " s (is stallwatchd running and listening there?)";
    }
    return "send to " + endpoint_ + " failed: " + zmq_strerror(e);
  }
}

void PushSender::close(int linger_ms) {
  if (socket_ != nullptr) {
    zmq_setsockopt(socket_, ZMQ_LINGER, &linger_ms, sizeof linger_ms);
    zmq_close(socket_);
    socket_ = nullptr;
  }
  if (context_ != nullptr) {
    zmq_ctx_term(context_);
    context_ = nullptr;
  }
}

}  // namespace stallwatch::collector
