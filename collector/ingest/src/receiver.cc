#include "ingest/receiver.h"

#include <stallwatch/protocol.h>
#include <zmq.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "ingest/ipc_endpoint.h"

namespace stallwatch::collector {
namespace {

constexpr int kMonitoredEvents = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED;

std::string zmq_error_text() {
  return zmq_strerror(zmq_errno());
}

// Closes a zmq_msg_t on every path out of receive(), the handler's throw included.
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

std::string monitor_address() {
  static std::atomic<std::uint64_t> next{0};
  return "inproc://stallwatch-ingest-monitor-" + std::to_string(next.fetch_add(1));
}

}  // namespace

Receiver::Receiver(ReceiverOptions options) : options_(options) {
  context_ = zmq_ctx_new();
  if (context_ == nullptr) {
    setup_error_ = "cannot create a ZeroMQ context: " + zmq_error_text();
    return;
  }
  socket_ = zmq_socket(context_, ZMQ_PULL);
  if (socket_ == nullptr) {
    setup_error_ = "cannot create a ZeroMQ socket: " + zmq_error_text();
    return;
  }
  const int hwm = options_.receive_hwm;
  const std::int64_t max_message = static_cast<std::int64_t>(wire::kMaxFrameBytes);
  const int linger = 0;
  if (zmq_setsockopt(socket_, ZMQ_RCVHWM, &hwm, sizeof(hwm)) != 0 ||
      zmq_setsockopt(socket_, ZMQ_MAXMSGSIZE, &max_message, sizeof(max_message)) != 0 ||
      zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger)) != 0) {
    setup_error_ = "cannot set ZeroMQ socket options: " + zmq_error_text();
    return;
  }
  // Connection counts are a convenience: without a monitor, ingest still works.
  const std::string address = monitor_address();
  if (zmq_socket_monitor(socket_, address.c_str(), kMonitoredEvents) == 0) {
    monitor_ = zmq_socket(context_, ZMQ_PAIR);
    if (monitor_ != nullptr && zmq_connect(monitor_, address.c_str()) != 0) {
      zmq_close(monitor_);
      monitor_ = nullptr;
    }
  }
}

Receiver::~Receiver() {
  if (monitor_ != nullptr) {
    zmq_socket_monitor(socket_, nullptr, 0);
    zmq_close(monitor_);
  }
  if (socket_ != nullptr) zmq_close(socket_);
  if (context_ != nullptr) zmq_ctx_term(context_);
}

std::optional<std::string> Receiver::bind(std::string_view endpoint) {
  const std::string name(endpoint);
  if (!setup_error_.empty()) return name + ": " + setup_error_;
  if (auto error = prepare_ipc_endpoint(name)) return name + ": " + *error;
  if (zmq_bind(socket_, name.c_str()) != 0) return name + ": " + zmq_error_text();

  char resolved[1024];
  std::size_t size = sizeof(resolved);
  if (zmq_getsockopt(socket_, ZMQ_LAST_ENDPOINT, resolved, &size) == 0 && size > 0) {
    endpoints_.emplace_back(resolved, std::strlen(resolved));
  } else {
    endpoints_.push_back(name);
  }
  return std::nullopt;
}

std::size_t Receiver::receive(int timeout_ms, const FrameHandler& handler) {
  if (socket_ == nullptr || !setup_error_.empty()) return 0;
  zmq_pollitem_t items[2] = {{socket_, 0, ZMQ_POLLIN, 0}, {monitor_, 0, ZMQ_POLLIN, 0}};
  const int item_count = monitor_ != nullptr ? 2 : 1;
  if (zmq_poll(items, item_count, timeout_ms) <= 0) return 0;
  if (item_count == 2 && (items[1].revents & ZMQ_POLLIN) != 0) drain_monitor();

  MessageGuard message;
  std::size_t frames = 0;
  while (frames < options_.max_frames_per_receive) {
    if (zmq_msg_recv(message.get(), socket_, ZMQ_DONTWAIT) < 0) break;
    handler({static_cast<const std::uint8_t*>(zmq_msg_data(message.get())),
             zmq_msg_size(message.get())});
    ++frames;
  }
  return frames;
}

void Receiver::drain_monitor() {
  // Each event is two parts: 6 bytes (uint16 event, uint32 value), then the endpoint.
  MessageGuard part;
  while (zmq_msg_recv(part.get(), monitor_, ZMQ_DONTWAIT) >= 0) {
    const bool first_part = zmq_msg_size(part.get()) == 6;
    if (first_part) {
      std::uint16_t event = 0;
      std::memcpy(&event, zmq_msg_data(part.get()), sizeof(event));
      if (event == ZMQ_EVENT_ACCEPTED) ++stats_.connections_accepted;
      if (event == ZMQ_EVENT_DISCONNECTED) ++stats_.connections_closed;
    }
    while (zmq_msg_more(part.get()) != 0) {
      if (zmq_msg_recv(part.get(), monitor_, ZMQ_DONTWAIT) < 0) return;
    }
  }
}

}  // namespace stallwatch::collector
