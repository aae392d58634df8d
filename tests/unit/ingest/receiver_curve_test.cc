// SPDX-License-Identifier: MIT
// The Receiver's CURVE socket on real ZeroMQ connections: what gets through,
// what is refused, and how each refusal is counted.

#include <gtest/gtest.h>
#include <zmq.h>

#include <chrono>
#include <string>
#include <vector>

#include "ingest/handshake_rejection.h"
#include "ingest/receiver.h"

namespace stallwatch::collector {
namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr auto kDeadline = std::chrono::seconds(20);

struct KeyPair {
  std::string public_key;
  std::string secret_key;
};

KeyPair new_key_pair() {
  char public_key[41] = {};
  char secret_key[41] = {};
  EXPECT_EQ(zmq_curve_keypair(public_key, secret_key), 0);
  return {public_key, secret_key};
}

// An agent stand-in: a PUSH socket on its own context, plaintext when
// `server_key` is empty, else a CURVE client with `client`'s keys.
class Pusher {
 public:
  Pusher(const std::string& endpoint, const std::string& server_key, const KeyPair& client)
      : context_(zmq_ctx_new()), socket_(zmq_socket(context_, ZMQ_PUSH)) {
    const int linger = 0;
    zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger));
    if (!server_key.empty()) {
      zmq_setsockopt(socket_, ZMQ_CURVE_SERVERKEY, server_key.c_str(), server_key.size());
      zmq_setsockopt(socket_, ZMQ_CURVE_PUBLICKEY, client.public_key.c_str(), 40);
      zmq_setsockopt(socket_, ZMQ_CURVE_SECRETKEY, client.secret_key.c_str(), 40);
    }
    EXPECT_EQ(zmq_connect(socket_, endpoint.c_str()), 0) << zmq_strerror(zmq_errno());
  }
  ~Pusher() {
    zmq_close(socket_);
    zmq_ctx_term(context_);
  }
  // Queues a frame; it leaves only once a handshake succeeds.
  void send(const Bytes& frame) { zmq_send(socket_, frame.data(), frame.size(), ZMQ_DONTWAIT); }

 private:
  void* context_;
  void* socket_;
};

std::uint64_t rejected(const Receiver& r, HandshakeRejection reason) {
  return r.stats().rejected[static_cast<std::size_t>(reason)];
}

// A plaintext client is refused as plaintext_client when the collector reads
// its greeting first, else it hangs up before and counts as handshake_failed.
std::uint64_t plaintext_refusals(const Receiver& r) {
  return rejected(r, HandshakeRejection::kPlaintextClient) +
         rejected(r, HandshakeRejection::kHandshakeFailed);
}

std::string counts(const Receiver& r) {
  std::string out;
  for (std::size_t i = 0; i < kHandshakeRejectionCount; ++i) {
    out += std::string(handshake_rejection_name(static_cast<HandshakeRejection>(i))) + " " +
           std::to_string(r.stats().rejected[i]) + " ";
  }
  return out;
}

// Receives until `done` holds or the deadline passed; returns the frames.
template <typename Done>
std::vector<Bytes> receive_until(Receiver& receiver, Done done) {
  std::vector<Bytes> frames;
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (!done(frames) && std::chrono::steady_clock::now() < deadline) {
    receiver.receive(50, [&](std::span<const std::uint8_t> frame) {
      frames.emplace_back(frame.begin(), frame.end());
    });
  }
  return frames;
}

// Receives for `ms` milliseconds more (what should not arrive has had time to).
void receive_for(Receiver& receiver, int ms, std::vector<Bytes>& frames) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
    receiver.receive(20, [&](std::span<const std::uint8_t> frame) {
      frames.emplace_back(frame.begin(), frame.end());
    });
  }
}

class ReceiverCurveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (zmq_has("curve") == 0) GTEST_SKIP() << "libzmq without CURVE";
    server_ = new_key_pair();
    agent_ = new_key_pair();
  }
  std::string bind_curve(Receiver& receiver, std::vector<std::string> allowed = {}) {
    EXPECT_EQ(receiver.enable_curve({server_.secret_key, std::move(allowed)}), std::nullopt);
    EXPECT_EQ(receiver.bind_curve("tcp://127.0.0.2:*"), std::nullopt);
    return receiver.curve_endpoints().empty() ? "" : receiver.curve_endpoints().back();
  }
  KeyPair server_;
  KeyPair agent_;
};

TEST_F(ReceiverCurveTest, ACurveClientWithTheServerKeyGetsThrough) {
  Receiver receiver;
  const std::string endpoint = bind_curve(receiver);
  Pusher agent(endpoint, server_.public_key, agent_);
  agent.send(Bytes{1, 2, 3});
  const auto frames = receive_until(receiver, [](const auto& f) { return !f.empty(); });
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0], (Bytes{1, 2, 3}));
  for (std::size_t r = 0; r < kHandshakeRejectionCount; ++r) {
    EXPECT_EQ(receiver.stats().rejected[r], 0u) << r;
  }
}

TEST_F(ReceiverCurveTest, PlaintextAndWrongKeyClientsAreRefusedAndCountedByReason) {
  Receiver receiver;
  ASSERT_EQ(receiver.bind("tcp://127.0.0.1:*"), std::nullopt);
  const std::string endpoint = bind_curve(receiver);
  Pusher plaintext(endpoint, "", {});
  Pusher wrong_key(endpoint, new_key_pair().public_key, agent_);
  Pusher good(endpoint, server_.public_key, agent_);
  Pusher local(receiver.endpoints().front(), "", {});
  plaintext.send(Bytes{9});
  wrong_key.send(Bytes{9});
  good.send(Bytes{1});
  local.send(Bytes{2});
  auto frames = receive_until(receiver, [&](const auto& f) {
    return f.size() >= 2 && plaintext_refusals(receiver) > 0 &&
           rejected(receiver, HandshakeRejection::kWrongServerKey) > 0;
  });
  receive_for(receiver, 300, frames);
  // The healthy agents' frames, and nothing of the refused ones.
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_NE(frames[0], Bytes{9});
  EXPECT_NE(frames[1], Bytes{9});
  EXPECT_GT(plaintext_refusals(receiver), 0u) << counts(receiver);
  EXPECT_GT(rejected(receiver, HandshakeRejection::kWrongServerKey), 0u) << counts(receiver);
  EXPECT_EQ(rejected(receiver, HandshakeRejection::kNotAllowed), 0u) << counts(receiver);
}

TEST_F(ReceiverCurveTest, TheAllowListAdmitsListedKeysOnly) {
  Receiver receiver;
  const std::string endpoint = bind_curve(receiver, {agent_.public_key});
  const KeyPair stranger = new_key_pair();
  Pusher listed(endpoint, server_.public_key, agent_);
  Pusher unlisted(endpoint, server_.public_key, stranger);
  listed.send(Bytes{1});
  unlisted.send(Bytes{9});
  auto frames = receive_until(receiver, [&](const auto& f) {
    return !f.empty() && rejected(receiver, HandshakeRejection::kNotAllowed) > 0;
  });
  receive_for(receiver, 300, frames);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0], Bytes{1});
  EXPECT_GT(rejected(receiver, HandshakeRejection::kNotAllowed), 0u);
  EXPECT_NE(receiver.last_refused_client().find(stranger.public_key), std::string::npos)
      << receiver.last_refused_client();
}

TEST_F(ReceiverCurveTest, MalformedKeysAreRefusedWhenSettingUp) {
  Receiver receiver;
  EXPECT_NE(receiver.enable_curve({"not a key", {}}), std::nullopt);
  EXPECT_NE(receiver.enable_curve({server_.secret_key, {"not a key either"}}), std::nullopt);
  EXPECT_NE(receiver.bind_curve("tcp://127.0.0.2:*"), std::nullopt);  // CURVE not set up
}

}  // namespace
}  // namespace stallwatch::collector
