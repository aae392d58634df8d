// SPDX-License-Identifier: MIT
#include "tree/upstream_sender.h"

#include <zmq.h>

#include "tree/node_report.h"

namespace stallwatch::collector {

UpstreamSender::UpstreamSender(UpstreamOptions options) : options_(std::move(options)) {}

UpstreamSender::~UpstreamSender() {
  if (socket_ != nullptr) zmq_close(socket_);
  if (context_ != nullptr) zmq_ctx_term(context_);
}

std::string UpstreamSender::start() {
  context_ = zmq_ctx_new();
  if (context_ == nullptr) return std::string("upstream: ") + zmq_strerror(zmq_errno());
  socket_ = zmq_socket(context_, ZMQ_PUSH);
  if (socket_ == nullptr) return std::string("upstream: ") + zmq_strerror(zmq_errno());
  const int zero = 0;
  const int one = 1;
  const int max_frame = static_cast<int>(kMaxReportBytes);
  bool ok = zmq_setsockopt(socket_, ZMQ_LINGER, &zero, sizeof(zero)) == 0 &&
            zmq_setsockopt(socket_, ZMQ_SNDHWM, &options_.send_hwm, sizeof(int)) == 0 &&
            zmq_setsockopt(socket_, ZMQ_IMMEDIATE, &one, sizeof(one)) == 0 &&
            zmq_setsockopt(socket_, ZMQ_SNDBUF, &max_frame, sizeof(max_frame)) == 0;
  if (ok && !options_.server_key.empty()) {
    ok = zmq_setsockopt(socket_, ZMQ_CURVE_SERVERKEY, options_.server_key.c_str(), 41) == 0 &&
         zmq_setsockopt(socket_, ZMQ_CURVE_PUBLICKEY, options_.public_key.c_str(), 41) == 0 &&
         zmq_setsockopt(socket_, ZMQ_CURVE_SECRETKEY, options_.secret_key.c_str(), 41) == 0;
  }
  if (!ok) return "upstream " + options_.endpoint + ": " + zmq_strerror(zmq_errno());
  if (zmq_connect(socket_, options_.endpoint.c_str()) != 0) {
    return "upstream " + options_.endpoint + ": " + zmq_strerror(zmq_errno());
  }
  return {};
}

void UpstreamSender::send(const Snapshot& snapshot) {
  if (socket_ == nullptr) return;
  bool unsent = false;
  for (const auto& frame :
       encode_reports(snapshot, options_.node, options_.http_address, &calls_)) {
    if (zmq_send(socket_, frame.data(), frame.size(), ZMQ_DONTWAIT) < 0) {
      ++stats_.reports_unsent;
      unsent = true;
      continue;
    }
    ++stats_.reports_sent;
    stats_.bytes_sent += frame.size();
  }
  // The head applies the next deltas to what it got: after a frame it did
  // not get, every rank's calls go whole again.
  if (unsent) {
    calls_.clear();
  } else {
    calls_.end_tick();
  }
}

}  // namespace stallwatch::collector
