// SPDX-License-Identifier: MIT
#include "replay/replay_command.h"

#include <gtest/gtest.h>
#include <zmq.h>

#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/name_table.h"
#include "ingest/batch_decoder.h"
#include "trace_files.h"
#include "traces/trace_reader.h"

namespace stallwatch::collector {
namespace {

std::uint64_t events_in(const std::string& path) {
  std::string error;
  auto reader = open_trace_reader(path, error);
  TraceEvent event;
  std::uint64_t n = 0;
  while (reader && reader->next(event))
    ++n;
  return n;
}

struct SourceLog {
  std::vector<std::uint64_t> seqs;
  std::vector<std::int64_t> sent_at;
  bool final_seen = false;
  std::string job;
};

TEST(ReplayCommand, SendsOneSourcePerRankWithContiguousSequences) {
  void* context = zmq_ctx_new();
  void* pull = zmq_socket(context, ZMQ_PULL);
  ASSERT_EQ(zmq_bind(pull, "tcp://127.0.0.1:*"), 0);
  char endpoint[256];
  std::size_t size = sizeof endpoint;
  ASSERT_EQ(zmq_getsockopt(pull, ZMQ_LAST_ENDPOINT, endpoint, &size), 0);

  const std::vector<std::string> files{
      testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
      testing::test_data("kineto/two-rank/sampled_rank-1.json.gz")};
  int code = -1;
  std::ostringstream out, err;
  std::thread sender([&] {
    const std::vector<std::string> words{files[0], files[1], "--speed", "max",       "--to",
                                         endpoint, "--job",  "t",       "--timeout", "30s"};
    const std::vector<std::string_view> args(words.begin(), words.end());
    code = run_replay(args, out, err);
  });

  NameTable names;
  BatchDecoder decoder(names);
  DecodedBatch batch;
  std::map<std::pair<std::int32_t, std::int32_t>, SourceLog> sources;
  std::uint64_t events = 0;
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  std::int64_t first_ts = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::size_t finals = 0;
  while (finals < 2 && std::chrono::steady_clock::now() < deadline) {
    zmq_pollitem_t item{pull, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, 1000) <= 0) continue;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    ASSERT_GE(zmq_msg_recv(&msg, pull, 0), 0);
    const auto* data = static_cast<const std::uint8_t*>(zmq_msg_data(&msg));
    const auto problem = decoder.decode({data, zmq_msg_size(&msg)}, batch);
    zmq_msg_close(&msg);
    ASSERT_FALSE(problem.has_value()) << "a replayed frame was refused by the decoder";
    SourceLog& log = sources[{batch.source.rank, batch.source.pid}];
    log.seqs.push_back(batch.seq);
    log.sent_at.push_back(batch.sent_at_ns);
    log.job = batch.source.job;
    events += batch.events.size();
    if (first_ts == 0 && !batch.events.empty()) first_ts = batch.events.front().ts_ns;
    if (batch.final) {
      log.final_seen = true;
      ++finals;
    }
  }
  sender.join();
  zmq_close(pull);
  zmq_ctx_term(context);

  EXPECT_EQ(code, 0) << err.str();
  EXPECT_NE(out.str().find("sent"), std::string::npos) << out.str();
  ASSERT_EQ(sources.size(), 2u);  // one source per rank: GPU rows belong to the training process
  std::set<std::int32_t> ranks;
  for (const auto& [key, log] : sources) {
    ranks.insert(key.first);
    EXPECT_EQ(log.job, "t");
    EXPECT_TRUE(log.final_seen);
    for (std::size_t i = 0; i < log.seqs.size(); ++i)
      EXPECT_EQ(log.seqs[i], i);
    for (std::size_t i = 1; i < log.sent_at.size(); ++i)
      EXPECT_GE(log.sent_at[i], log.sent_at[i - 1]);
  }
  EXPECT_EQ(ranks, (std::set<std::int32_t>{0, 1}));
  EXPECT_EQ(events, events_in(files[0]) + events_in(files[1]));
  // Rebased: the recording (from 2022) appears to run now.
  EXPECT_LT(std::llabs(first_ts - now_ns), 3600LL * 1'000'000'000);
}

// Real-time replay keeps a quiet process's watermark moving with empty
// heartbeat batches, so the dashboards see it alive while nothing happens.
TEST(ReplayCommand, PacedReplaySendsHeartbeatsThroughGaps) {
  testing::TempDir dir;
  const std::string trace =
      dir.write("trace-0-of-1.pfw",
                R"({"name":"a","cat":"compute","pid":9,"tid":9,"ts":1000000,"dur":10000,"ph":"X"})"
                "\n"
                R"({"name":"b","cat":"compute","pid":9,"tid":9,"ts":21000000,"dur":10000,"ph":"X"})"
                "\n");
  void* context = zmq_ctx_new();
  void* pull = zmq_socket(context, ZMQ_PULL);
  ASSERT_EQ(zmq_bind(pull, "tcp://127.0.0.1:*"), 0);
  char endpoint[256];
  std::size_t size = sizeof endpoint;
  ASSERT_EQ(zmq_getsockopt(pull, ZMQ_LAST_ENDPOINT, endpoint, &size), 0);
  int code = -1;
  std::ostringstream out, err;
  std::thread sender([&] {
    // 20 s of trace at 10x: two seconds of wall time with nothing to send.
    const std::vector<std::string> words{trace, "--speed", "10", "--to", endpoint};
    const std::vector<std::string_view> args(words.begin(), words.end());
    code = run_replay(args, out, err);
  });
  NameTable names;
  BatchDecoder decoder(names);
  DecodedBatch batch;
  std::vector<std::int64_t> sent_at;
  std::size_t heartbeats = 0;
  bool final_seen = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!final_seen && std::chrono::steady_clock::now() < deadline) {
    zmq_pollitem_t item{pull, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, 1000) <= 0) continue;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    ASSERT_GE(zmq_msg_recv(&msg, pull, 0), 0);
    const auto* data = static_cast<const std::uint8_t*>(zmq_msg_data(&msg));
    ASSERT_FALSE(decoder.decode({data, zmq_msg_size(&msg)}, batch).has_value());
    zmq_msg_close(&msg);
    sent_at.push_back(batch.sent_at_ns);
    if (batch.events.empty() && !batch.final) ++heartbeats;
    final_seen = batch.final;
  }
  sender.join();
  zmq_close(pull);
  zmq_ctx_term(context);
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_GE(heartbeats, 1u);
  for (std::size_t i = 1; i < sent_at.size(); ++i)
    EXPECT_GE(sent_at[i], sent_at[i - 1]);
}

TEST(ReplayCommand, FailsClearlyWhenNoCollectorListens) {
  // A port nobody listens on: bind, read it back, close.
  void* context = zmq_ctx_new();
  void* probe = zmq_socket(context, ZMQ_PULL);
  ASSERT_EQ(zmq_bind(probe, "tcp://127.0.0.1:*"), 0);
  char endpoint[256];
  std::size_t size = sizeof endpoint;
  ASSERT_EQ(zmq_getsockopt(probe, ZMQ_LAST_ENDPOINT, endpoint, &size), 0);
  zmq_close(probe);
  zmq_ctx_term(context);

  const std::vector<std::string> words{testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
                                       "--speed",
                                       "max",
                                       "--to",
                                       endpoint,
                                       "--timeout",
                                       "300ms"};
  const std::vector<std::string_view> args(words.begin(), words.end());
  std::ostringstream out, err;
  EXPECT_EQ(run_replay(args, out, err), 1);
  EXPECT_NE(err.str().find("no collector took data"), std::string::npos) << err.str();
}

TEST(ReplayCommand, UsageErrors) {
  std::ostringstream out, err;
  const std::vector<std::string_view> none;
  EXPECT_EQ(run_replay(none, out, err), 2);
  const std::vector<std::string_view> bad{"x.pfw", "--speed", "fast"};
  EXPECT_EQ(run_replay(bad, out, err), 2);
  EXPECT_NE(err.str().find("--speed: 'fast'"), std::string::npos);
  // One duration syntax everywhere: a bare number is refused, never read as seconds.
  const std::vector<std::string_view> bare{"x.pfw", "--timeout", "30"};
  EXPECT_EQ(run_replay(bare, out, err), 2);
  EXPECT_NE(err.str().find("--timeout: '30' has no unit"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace stallwatch::collector
