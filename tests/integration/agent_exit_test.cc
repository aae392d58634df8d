// SPDX-License-Identifier: MIT
// An agent that exits right after a burst while its collector is behind
// over ipc:// (a PULL socket that does not read yet, or the daemon frozen
// with SIGSTOP): every event it sent reaches the daemon,
// because the agent waits, at most STALLWATCH_LINGER_MS, until the daemon has
// read everything. A daemon that stays frozen costs the agent only that time,
// and the agent says what may be lost.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>
#include <zmq.h>

#include <thread>
#include <vector>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

// Small batches and a deep send queue: the burst is hundreds of frames, more
// than the daemon's receive queue and the kernel's socket buffer hold.
AgentRun burst_run(const DaemonProcess& daemon, const std::string& job, const char* linger_ms) {
  AgentRun run{"overlapped", 1, job, 0, daemon.ipc_endpoint()};
  run.env = {{"STALLWATCH_BATCH_EVENTS", "64"},
             {"STALLWATCH_SEND_HWM", "1000"},
             {"STALLWATCH_LINGER_MS", linger_ms}};
  run.burst = 12000;
  return run;
}

// Waits until the daemon holds the rank, then freezes it.
void freeze_once_connected(const DaemonProcess& daemon, const std::string& job) {
  ASSERT_TRUE(wait_until(
      [&] {
        const json row = rank_row(daemon, job, 0);
        return row.is_object() && row.value("events_received", 0) > 0;
      },
      15s))
      << daemon.log();
  ::kill(daemon.pid(), SIGSTOP);
}

// A PULL socket on a fresh ipc path with a small receive high-water mark
// that reads only when told to, like a busy stallwatchd.
struct SlowCollector {
  explicit SlowCollector(const std::string& dir) : endpoint("ipc://" + dir + "/slow.sock") {
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
  }
  // Frames until none arrives for 500 ms.
  std::uint64_t read_all() {
    std::uint64_t n = 0;
    std::vector<char> buffer(1 << 20);
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

// Without the wait, the agent hands its last frames to the kernel and exits,
// and the collector, reading afterwards, gets only part of them.
TEST(AgentExitTest, ACollectorThatReadsOnlyAfterTheExitStillGetsEveryBatch) {
  TempDir dir;
  SlowCollector collector(dir.path());
  ASSERT_TRUE(collector.ok);
  AgentRun run{"overlapped", 0.3, "exit-slow", 0, collector.endpoint};
  run.env = {{"STALLWATCH_BATCH_EVENTS", "64"},
             {"STALLWATCH_SEND_HWM", "1000"},
             {"STALLWATCH_LINGER_MS", "10000"}};
  run.burst = 3000;
  ScriptedAgent agent(run, dir.path());
  ASSERT_TRUE(agent.start());
  // The agent is exiting (or has exited) before the collector reads a frame.
  std::this_thread::sleep_for(1500ms);
  const std::uint64_t frames = collector.read_all();
  ASSERT_EQ(agent.process().wait(15s), 0) << agent.output();
  const auto report = load_agent_report(agent.report_path());
  ASSERT_TRUE(report.has_value());
  std::printf("the agent sent %llu batches, the collector read %llu\n",
              static_cast<unsigned long long>(report->stats.batches_sent),
              static_cast<unsigned long long>(frames));
  EXPECT_GT(report->stats.batches_sent, 40u);
  EXPECT_EQ(frames, report->stats.batches_sent);
}

// End to end with the real daemon. Its ingest thread drains its receive queue
// quickly once continued, so this run rarely loses frames even without the
// wait; the test above is the one that shows the loss.
TEST(AgentExitTest, EveryEventSentBeforeExitReachesADaemonThatIsBehind) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent agent(burst_run(daemon, "exit-burst", "10000"), daemon.dir());
  ASSERT_TRUE(agent.start());
  freeze_once_connected(daemon, "exit-burst");
  // The agent finishes its schedule and its burst and exits while frozen.
  std::this_thread::sleep_for(2s);
  ::kill(daemon.pid(), SIGCONT);
  ASSERT_EQ(agent.process().wait(30s), 0) << agent.output();

  const auto report = load_agent_report(agent.report_path());
  ASSERT_TRUE(report.has_value());
  const AgentStats& stats = report->stats;
  json row;
  ASSERT_TRUE(wait_until(
      [&] {
        row = rank_row(daemon, "exit-burst", 0);
        return row.is_object() && row.value("state", "") == "finished";
      },
      15s))
      << daemon.log();
  std::printf("recorded %llu, sent %llu in %llu batches, lost in send %llu; received %llu\n",
              static_cast<unsigned long long>(stats.events_recorded),
              static_cast<unsigned long long>(stats.events_sent),
              static_cast<unsigned long long>(stats.batches_sent),
              static_cast<unsigned long long>(stats.events_lost_in_send),
              static_cast<unsigned long long>(row.value("events_received", std::uint64_t{0})));
  EXPECT_GT(stats.batches_sent, 150u);
  EXPECT_EQ(stats.events_recorded, stats.events_sent + stats.events_lost_in_send);
  EXPECT_EQ(row.value("events_received", std::uint64_t{0}), stats.events_sent);
  EXPECT_EQ(agent.output().find("had not read"), std::string::npos) << agent.output();
}

TEST(AgentExitTest, AFrozenDaemonDelaysExitOnlyUpToTheLingerTimeAndIsReported) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent agent(burst_run(daemon, "exit-frozen", "1000"), daemon.dir());
  ASSERT_TRUE(agent.start());
  freeze_once_connected(daemon, "exit-frozen");
  // The schedule lasts 1 s; the wait for the frozen daemon adds at most 1 s.
  const auto status = agent.process().wait(6s);
  ::kill(daemon.pid(), SIGCONT);
  ASSERT_EQ(status, 0) << agent.output();
  EXPECT_NE(agent.output().find("had not read the last"), std::string::npos) << agent.output();
}

}  // namespace
}  // namespace stallwatch::test
