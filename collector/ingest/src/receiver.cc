// SPDX-License-Identifier: MIT
#include "ingest/receiver.h"

#include <zmq.h>

#include "ingest/ipc_endpoint.h"
#include "pull_socket.h"
#include "stallwatch/curve_key.h"
#include "zap_handler.h"

namespace stallwatch::collector {
namespace {

// The ZAP domain of the CURVE socket: only sockets with one ask the handler.
constexpr const char* kZapDomain = "stallwatch-ingest";

}  // namespace

struct Receiver::Sockets {
  std::unique_ptr<detail::PullSocket> plain;
  std::unique_ptr<detail::PullSocket> curve;  // after enable_curve()
  std::unique_ptr<detail::ZapHandler> zap;    // with an allow-list only
};

Receiver::Receiver(ReceiverOptions options)
    : options_(options), sockets_(std::make_unique<Sockets>()) {
  context_ = zmq_ctx_new();
  if (context_ == nullptr) {
    setup_error_ = std::string("cannot create a ZeroMQ context: ") + zmq_strerror(zmq_errno());
    return;
  }
  sockets_->plain = std::make_unique<detail::PullSocket>(context_, options_, "", "");
}

Receiver::~Receiver() {
  sockets_.reset();
  if (context_ != nullptr) zmq_ctx_term(context_);
}

const std::string& Receiver::last_refused_client() const {
  static const std::string kNone;
  return sockets_->zap ? sockets_->zap->last_refused() : kNone;
}

std::optional<std::string> Receiver::bind(std::string_view endpoint) {
  const std::string name(endpoint);
  if (!setup_error_.empty()) return name + ": " + setup_error_;
  if (auto error = prepare_ipc_endpoint(name)) return name + ": " + *error;
  std::string resolved;
  if (auto error = sockets_->plain->bind(name, resolved)) return name + ": " + *error;
  endpoints_.push_back(std::move(resolved));
  return std::nullopt;
}

std::optional<std::string> Receiver::enable_curve(const CurveServerKeys& keys) {
  if (!setup_error_.empty()) return setup_error_;
  if (sockets_->curve) return std::string("CURVE is already set up");
  if (zmq_has("curve") == 0) {
    return std::string("this libzmq was built without CURVE (zmq_has(\"curve\") is 0)");
  }
  if (!wire::is_z85_key(keys.secret_key)) {
    return std::string("the secret key is not 40 characters of Z85");
  }
  if (!keys.allowed_keys.empty()) {
    auto zap = std::make_unique<detail::ZapHandler>(context_, keys.allowed_keys);
    if (!zap->error().empty()) return zap->error();
    sockets_->zap = std::move(zap);
  }
  auto curve = std::make_unique<detail::PullSocket>(context_, options_, keys.secret_key,
                                                    sockets_->zap ? kZapDomain : "");
  if (!curve->error().empty()) return curve->error();
  sockets_->curve = std::move(curve);
  return std::nullopt;
}

std::optional<std::string> Receiver::bind_curve(std::string_view endpoint) {
  const std::string name(endpoint);
  if (!sockets_->curve) return name + ": CURVE is not set up";
  if (auto error = prepare_ipc_endpoint(name)) return name + ": " + *error;
  std::string resolved;
  if (auto error = sockets_->curve->bind(name, resolved)) return name + ": " + *error;
  endpoints_.push_back(resolved);
  curve_endpoints_.push_back(std::move(resolved));
  return std::nullopt;
}

std::size_t Receiver::receive(int timeout_ms, const FrameHandler& handler) {
  if (!setup_error_.empty() || !sockets_->plain->error().empty()) return 0;
  detail::PullSocket* sockets[] = {sockets_->plain.get(), sockets_->curve.get()};
  // Poll items: per socket its data socket and its monitor (when it has
  // one), then the ZAP handler; only what is readable is read.
  zmq_pollitem_t items[5];
  int data_item[2] = {-1, -1};
  int monitor_item[2] = {-1, -1};
  int zap_item = -1;
  int count = 0;
  for (int i = 0; i < 2; ++i) {
    if (sockets[i] == nullptr) continue;
    data_item[i] = count;
    items[count++] = {sockets[i]->socket(), 0, ZMQ_POLLIN, 0};
    if (sockets[i]->monitor() != nullptr) {
      monitor_item[i] = count;
      items[count++] = {sockets[i]->monitor(), 0, ZMQ_POLLIN, 0};
    }
  }
  if (sockets_->zap) {
    zap_item = count;
    items[count++] = {sockets_->zap->socket(), 0, ZMQ_POLLIN, 0};
  }
  if (zmq_poll(items, count, timeout_ms) <= 0) return 0;
  const auto readable = [&](int item) { return item >= 0 && (items[item].revents & ZMQ_POLLIN); };
  if (readable(zap_item)) sockets_->zap->answer();

  std::size_t frames = 0;
  for (int i = 0; i < 2; ++i) {
    if (sockets[i] == nullptr) continue;
    if (readable(monitor_item[i])) sockets[i]->drain_monitor(stats_);
    if (readable(data_item[i]))
      frames += sockets[i]->receive(options_.max_frames_per_receive, handler);
  }
  return frames;
}

}  // namespace stallwatch::collector
