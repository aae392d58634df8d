// SPDX-License-Identifier: MIT
#include "pull_socket.h"

#include <stallwatch/protocol.h>
#include <zmq.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace stallwatch::collector::detail {
namespace {

constexpr int kMonitoredEvents =
    ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
    ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
    ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;

std::string zmq_error_text() {
  return zmq_strerror(zmq_errno());
}

std::string monitor_address() {
  static std::atomic<std::uint64_t> next{0};
  return "inproc://stallwatch-ingest-monitor-" + std::to_string(next.fetch_add(1));
}

// Closes a zmq_msg_t on every path out, a handler's throw included.
class MessageGuard {
 public:
  MessageGuard() { zmq_msg_init(&message_); }
  ~MessageGuard() { zmq_msg_close(&message_); }
  MessageGuard(const MessageGuard&) = delete;
  MessageGuard& operator=(const MessageGuard&) = delete;
  zmq_msg_t* get() { return &message_; }

 private:
  zmq_msg_t message_;
};

HandshakeRejection protocol_failure(std::uint32_t value, bool curve) {
  if (curve && value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH) {
    return HandshakeRejection::kPlaintextClient;
  }
  if (curve && value == ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC) {
    return HandshakeRejection::kWrongServerKey;
  }
  return HandshakeRejection::kHandshakeFailed;
}

}  // namespace

PullSocket::PullSocket(void* context, const ReceiverOptions& options,
                       const std::string& curve_secret_key, const std::string& zap_domain)
    : curve_(!curve_secret_key.empty()) {
  socket_ = zmq_socket(context, ZMQ_PULL);
  if (socket_ == nullptr) {
    error_ = "cannot create a ZeroMQ socket: " + zmq_error_text();
    return;
  }
  const int hwm = options.receive_hwm;
  const std::int64_t max_message = static_cast<std::int64_t>(wire::kMaxFrameBytes);
  const int linger = 0;
  if (zmq_setsockopt(socket_, ZMQ_RCVHWM, &hwm, sizeof(hwm)) != 0 ||
      zmq_setsockopt(socket_, ZMQ_MAXMSGSIZE, &max_message, sizeof(max_message)) != 0 ||
      zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger)) != 0) {
    error_ = "cannot set ZeroMQ socket options: " + zmq_error_text();
    return;
  }
  if (curve_) {
    const int server = 1;
    if (zmq_setsockopt(socket_, ZMQ_CURVE_SERVER, &server, sizeof(server)) != 0 ||
        zmq_setsockopt(socket_, ZMQ_CURVE_SECRETKEY, curve_secret_key.c_str(),
                       curve_secret_key.size()) != 0 ||
        (!zap_domain.empty() &&
         zmq_setsockopt(socket_, ZMQ_ZAP_DOMAIN, zap_domain.data(), zap_domain.size()) != 0)) {
      error_ = "cannot set up CURVE on the ZeroMQ socket: " + zmq_error_text();
      return;
    }
  }
  // Connection counts are a convenience: without a monitor, ingest still
  // works (and refusals still happen, uncounted).
  const std::string address = monitor_address();
  if (zmq_socket_monitor(socket_, address.c_str(), kMonitoredEvents) == 0) {
    monitor_ = zmq_socket(context, ZMQ_PAIR);
    if (monitor_ != nullptr && zmq_connect(monitor_, address.c_str()) != 0) {
      zmq_close(monitor_);
      monitor_ = nullptr;
    }
  }
}

PullSocket::~PullSocket() {
  if (monitor_ != nullptr) {
    zmq_socket_monitor(socket_, nullptr, 0);
    zmq_close(monitor_);
  }
  if (socket_ != nullptr) zmq_close(socket_);
}

std::optional<std::string> PullSocket::bind(const std::string& endpoint, std::string& resolved) {
  if (!error_.empty()) return error_;
  if (zmq_bind(socket_, endpoint.c_str()) != 0) return zmq_error_text();
  char name[1024];
  std::size_t size = sizeof(name);
  if (zmq_getsockopt(socket_, ZMQ_LAST_ENDPOINT, name, &size) == 0 && size > 0) {
    resolved.assign(name, std::strlen(name));
  } else {
    resolved = endpoint;
  }
  return std::nullopt;
}

std::size_t PullSocket::receive(std::size_t max, const Receiver::FrameHandler& handler) {
  MessageGuard message;
  std::size_t frames = 0;
  while (frames < max) {
    if (zmq_msg_recv(message.get(), socket_, ZMQ_DONTWAIT) < 0) break;
    handler({static_cast<const std::uint8_t*>(zmq_msg_data(message.get())),
             zmq_msg_size(message.get())});
    ++frames;
  }
  return frames;
}

void PullSocket::drain_monitor(ReceiverStats& stats) {
  if (monitor_ == nullptr) return;
  // Each event is two parts: 6 bytes (uint16 event, uint32 value), then the endpoint.
  MessageGuard part;
  while (zmq_msg_recv(part.get(), monitor_, ZMQ_DONTWAIT) >= 0) {
    if (zmq_msg_size(part.get()) == 6) {
      const auto* bytes = static_cast<const unsigned char*>(zmq_msg_data(part.get()));
      std::uint16_t event = 0;
      std::uint32_t value = 0;
      std::memcpy(&event, bytes, sizeof(event));
      std::memcpy(&value, bytes + sizeof(event), sizeof(value));
      const auto count = [&stats](HandshakeRejection reason) {
        ++stats.rejected[static_cast<std::size_t>(reason)];
      };
      const auto handshake_ended = [this] {
        if (!handshaking_.empty()) handshaking_.pop_front();
      };
      switch (event) {
        case ZMQ_EVENT_ACCEPTED:
          ++stats.connections_accepted;
          if (curve_) handshaking_.push_back(value);
          break;
        case ZMQ_EVENT_DISCONNECTED:
          ++stats.connections_closed;
          if (auto it = std::find(handshaking_.begin(), handshaking_.end(), value);
              it != handshaking_.end()) {
            handshaking_.erase(it);
            count(HandshakeRejection::kHandshakeFailed);
          }
          break;
        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
          handshake_ended();
          break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
          count(HandshakeRejection::kNotAllowed);
          handshake_ended();
          break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
          count(protocol_failure(value, curve_));
          handshake_ended();
          break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
          count(HandshakeRejection::kHandshakeFailed);
          handshake_ended();
          break;
        default:
          break;
      }
    }
    while (zmq_msg_more(part.get()) != 0) {
      if (zmq_msg_recv(part.get(), monitor_, ZMQ_DONTWAIT) < 0) return;
    }
  }
}

}  // namespace stallwatch::collector::detail
