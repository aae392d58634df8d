// SPDX-License-Identifier: MIT
// PushSender::close() returns only once the collector has read every frame:
// over ipc, a PULL socket that is behind loses what is still in its kernel
// buffer when the sender hangs up, so "queued" must not count as delivered.
#include "push_sender.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zmq.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace stallwatch::collector {
namespace {

constexpr int kFrames = 300;
constexpr std::size_t kFrameBytes = 300;

// A PULL socket on a fresh ipc path with a small receive high-water mark,
// like a busy stallwatchd.
struct SlowCollector {
  SlowCollector() {
    endpoint = "ipc:///tmp/stallwatch-push-sender-test-" + std::to_string(getpid()) + ".sock";
    context = zmq_ctx_new();
    pull = zmq_socket(context, ZMQ_PULL);
    const int hwm = 10;
    const int linger = 0;
    zmq_setsockopt(pull, ZMQ_RCVHWM, &hwm, sizeof hwm);
    zmq_setsockopt(pull, ZMQ_LINGER, &linger, sizeof linger);
    ok = zmq_bind(pull, endpoint.c_str()) == 0;
  }
  ~SlowCollector() {
    zmq_close(pull);
    zmq_ctx_term(context);
    unlink(endpoint.substr(6).c_str());
  }
  // Frames until none arrives for 500 ms.
  int read_all() {
    int n = 0;
    std::vector<char> buffer(kFrameBytes * 2);
    const int timeout = 500;
    zmq_setsockopt(pull, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    while (zmq_recv(pull, buffer.data(), buffer.size(), 0) >= 0)
      ++n;
    return n;
  }
  std::string endpoint;
  void* context = nullptr;
  void* pull = nullptr;
  bool ok = false;
};

TEST(PushSender, CloseWaitsUntilABusyCollectorHasReadEveryFrame) {
  SlowCollector collector;
  ASSERT_TRUE(collector.ok);
  std::string error;
  auto sender = PushSender::connect(collector.endpoint, 5000, error);
  ASSERT_TRUE(sender) << error;
  const std::vector<std::uint8_t> frame(kFrameBytes, 7);
  for (int i = 0; i < kFrames; ++i)
    ASSERT_EQ(sender->send(frame), "");
  // The collector starts reading only while the sender is closing.
  std::string problem = "not closed";
  std::thread closer([&] { problem = sender->close(10'000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(collector.read_all(), kFrames);
  closer.join();
  EXPECT_EQ(problem, "");
}

TEST(PushSender, CloseSaysWhenTheCollectorDidNotReadEverything) {
  SlowCollector collector;
  ASSERT_TRUE(collector.ok);
  std::string error;
  auto sender = PushSender::connect(collector.endpoint, 5000, error);
  ASSERT_TRUE(sender) << error;
  const std::vector<std::uint8_t> frame(kFrameBytes, 7);
  for (int i = 0; i < kFrames; ++i)
    ASSERT_EQ(sender->send(frame), "");
  const std::string problem = sender->close(300);
  EXPECT_NE(problem.find("had not read the last"), std::string::npos) << problem;
}

}  // namespace
}  // namespace stallwatch::collector
