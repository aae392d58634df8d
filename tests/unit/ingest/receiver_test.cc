// SPDX-License-Identifier: MIT
#include "ingest/receiver.h"

#include <gtest/gtest.h>
#include <stallwatch/protocol.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace stallwatch::collector {
namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr auto kDeadline = std::chrono::seconds(20);

// A directory under /tmp (short: ipc paths are limited to 107 bytes), removed at the end.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/sw-ingest-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// An agent stand-in: a PUSH socket on its own context.
class Pusher {
 public:
  explicit Pusher(const std::string& endpoint)
      : context_(zmq_ctx_new()), socket_(zmq_socket(context_, ZMQ_PUSH)) {
    const int linger = 2000;
    zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger));
    EXPECT_EQ(zmq_connect(socket_, endpoint.c_str()), 0) << zmq_strerror(zmq_errno());
  }
  ~Pusher() {
    zmq_close(socket_);
    zmq_ctx_term(context_);
  }
  void send(const Bytes& frame) {
    EXPECT_EQ(zmq_send(socket_, frame.data(), frame.size(), 0), static_cast<int>(frame.size()));
  }

 private:
  void* context_;
  void* socket_;
};

Bytes frame_of(std::size_t size, std::uint8_t fill) {
  return Bytes(size, fill);
}

// Receives until `count` frames arrived or the deadline passed.
std::vector<Bytes> receive_frames(Receiver& receiver, std::size_t count) {
  std::vector<Bytes> frames;
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (frames.size() < count && std::chrono::steady_clock::now() < deadline) {
    receiver.receive(100, [&](std::span<const std::uint8_t> frame) {
      frames.emplace_back(frame.begin(), frame.end());
    });
  }
  return frames;
}

TEST(ReceiverTest, ReceivesFramesOnAFreeTcpPort) {
  Receiver receiver;
  ASSERT_EQ(receiver.bind("tcp://127.0.0.1:*"), std::nullopt);
  ASSERT_EQ(receiver.endpoints().size(), 1u);
  const std::string endpoint = receiver.endpoints()[0];
  EXPECT_TRUE(endpoint.starts_with("tcp://127.0.0.1:")) << endpoint;
  EXPECT_NE(endpoint, "tcp://127.0.0.1:*");

  Pusher pusher(endpoint);
  pusher.send(frame_of(10, 1));
  pusher.send(frame_of(100'000, 2));
  pusher.send(frame_of(1, 3));
  const auto frames = receive_frames(receiver, 3);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0], frame_of(10, 1));
  EXPECT_EQ(frames[1], frame_of(100'000, 2));
  EXPECT_EQ(frames[2], frame_of(1, 3));
}

TEST(ReceiverTest, ReceivesOnTcpAndIpcAtOnce) {
  TempDir dir;
  const std::string socket_dir = dir.path() + "/run/stallwatch";
  const std::string ipc = "ipc://" + socket_dir + "/ingest.sock";
  Receiver receiver;
  ASSERT_EQ(receiver.bind("tcp://127.0.0.1:*"), std::nullopt);
  ASSERT_EQ(receiver.bind(ipc), std::nullopt);
  ASSERT_EQ(receiver.endpoints().size(), 2u);
  EXPECT_EQ(receiver.endpoints()[1], ipc);

  struct stat info {};
  ASSERT_EQ(::stat(socket_dir.c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0700u);

  Pusher over_tcp(receiver.endpoints()[0]);
  Pusher over_ipc(ipc);
  over_tcp.send(frame_of(64, 7));
  over_ipc.send(frame_of(64, 8));
  auto frames = receive_frames(receiver, 2);
  ASSERT_EQ(frames.size(), 2u);
  std::sort(frames.begin(), frames.end());
  EXPECT_EQ(frames[0], frame_of(64, 7));
  EXPECT_EQ(frames[1], frame_of(64, 8));
}

TEST(ReceiverTest, BindErrorNamesTheEndpoint) {
  Receiver first;
  ASSERT_EQ(first.bind("tcp://127.0.0.1:*"), std::nullopt);
  const std::string taken = first.endpoints()[0];
  Receiver second;
  const auto error = second.bind(taken);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, taken + ": Address already in use");
  EXPECT_TRUE(second.endpoints().empty());

  const auto bogus = second.bind("bogus://nowhere");
  ASSERT_TRUE(bogus.has_value());
  EXPECT_TRUE(bogus->starts_with("bogus://nowhere: ")) << *bogus;
}

TEST(ReceiverTest, RefusesALiveIpcSocketAndKeepsItWorking) {
  TempDir dir;
  const std::string ipc = "ipc://" + dir.path() + "/ingest.sock";
  Receiver first;
  ASSERT_EQ(first.bind(ipc), std::nullopt);
  Receiver second;
  const auto error = second.bind(ipc);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, ipc + ": Address already in use");

  Pusher pusher(ipc);
  pusher.send(frame_of(5, 9));
  EXPECT_EQ(receive_frames(first, 1).size(), 1u);
}

TEST(ReceiverTest, ReplacesAStaleIpcSocket) {
  TempDir dir;
  const std::string path = dir.path() + "/ingest.sock";
  // A socket file left behind by a process that died without cleaning up.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  ::close(fd);
  ASSERT_TRUE(std::filesystem::is_socket(path));

  Receiver receiver;
  ASSERT_EQ(receiver.bind("ipc://" + path), std::nullopt);
  Pusher pusher("ipc://" + path);
  pusher.send(frame_of(3, 1));
  EXPECT_EQ(receive_frames(receiver, 1).size(), 1u);
}

TEST(ReceiverTest, RefusesToReplaceAFileThatIsNotASocket) {
  TempDir dir;
  const std::string path = dir.path() + "/ingest.sock";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fclose(file);
  Receiver receiver;
  const auto error = receiver.bind("ipc://" + path);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "ipc://" + path + ": " + path + " exists and is not a socket");
  EXPECT_TRUE(std::filesystem::is_regular_file(path));
}

TEST(ReceiverTest, CutsAPeerSendingAnOversizedFrame) {
  Receiver receiver;
  ASSERT_EQ(receiver.bind("tcp://127.0.0.1:*"), std::nullopt);
  {
    Pusher flooder(receiver.endpoints()[0]);
    flooder.send(frame_of(wire::kMaxFrameBytes + 1, 0xee));
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    std::size_t delivered = 0;
    while (receiver.stats().connections_closed == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      delivered += receiver.receive(100, [](std::span<const std::uint8_t>) {});
    }
    EXPECT_EQ(delivered, 0u);
    EXPECT_GE(receiver.stats().connections_accepted, 1u);
    EXPECT_GE(receiver.stats().connections_closed, 1u);
  }
  Pusher honest(receiver.endpoints()[0]);
  honest.send(frame_of(wire::kMaxFrameBytes, 0x11));
  const auto frames = receive_frames(receiver, 1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].size(), wire::kMaxFrameBytes);
}

TEST(ReceiverTest, ReceiveTimesOutWhenNothingArrives) {
  Receiver receiver;
  ASSERT_EQ(receiver.bind("tcp://127.0.0.1:*"), std::nullopt);
  bool called = false;
  EXPECT_EQ(receiver.receive(10, [&](std::span<const std::uint8_t>) { called = true; }), 0u);
  EXPECT_FALSE(called);
}

TEST(ReceiverTest, HandsOverAtMostTheConfiguredNumberOfFramesPerCall) {
  ReceiverOptions options;
  options.max_frames_per_receive = 2;
  Receiver receiver(options);
  ASSERT_EQ(receiver.bind("tcp://127.0.0.1:*"), std::nullopt);
  Pusher pusher(receiver.endpoints()[0]);
  for (int i = 0; i < 5; ++i)
    pusher.send(frame_of(8, static_cast<std::uint8_t>(i)));
  const auto frames = receive_frames(receiver, 5);
  ASSERT_EQ(frames.size(), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(frames[i], frame_of(8, static_cast<std::uint8_t>(i)));
  std::size_t largest = 0;
  pusher.send(frame_of(8, 0));
  pusher.send(frame_of(8, 0));
  pusher.send(frame_of(8, 0));
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  std::size_t total = 0;
  while (total < 3 && std::chrono::steady_clock::now() < deadline) {
    const std::size_t got = receiver.receive(100, [](std::span<const std::uint8_t>) {});
    largest = std::max(largest, got);
    total += got;
  }
  EXPECT_EQ(total, 3u);
  EXPECT_LE(largest, 2u);
}

}  // namespace
}  // namespace stallwatch::collector
