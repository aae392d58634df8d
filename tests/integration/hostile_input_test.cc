// SPDX-License-Identifier: MIT
// Hostile bytes on stallwatchd's ingest sockets while a healthy agent runs:
// every invalid frame is counted under its reason in /api/v1/status and
// /metrics, an oversized frame only costs its sender the connection, and the
// healthy rank's numbers stay exactly what its agent recorded.

#include <gtest/gtest.h>
#include <stallwatch/protocol.h>

#include <map>
#include <random>

#include "crafted_frames.h"
#include "integration_fixture.h"
#include "prometheus_samples.h"

namespace stallwatch::test {
namespace {

using Counts = std::map<std::string, std::uint64_t>;

Counts invalid_frames(const DaemonProcess& daemon) {
  const json status = get_json(daemon, "/api/v1/status");
  Counts counts;
  if (!status.is_object()) return counts;
  for (const auto& [reason, n] : status["ingest"]["invalid_frames"].items()) {
    counts[reason] = n.get<std::uint64_t>();
  }
  return counts;
}

// Sends the whole hostile mix; returns what each reason must count.
Counts send_hostile_mix(const std::string& endpoint) {
  FramePusher pusher(endpoint);
  std::mt19937_64 rng(20240611);
  Counts expected{
      {"too_large", 0}, {"bad_identifier", 0}, {"malformed", 0}, {"version", 0}, {"semantic", 0}};
  for (std::size_t size : {1u, 3u, 7u, 8u, 64u, 512u, 4096u, 65536u}) {
    EXPECT_TRUE(pusher.send(random_frame(rng, size)));
    ++expected["bad_identifier"];
  }
  for (std::size_t size : {8u, 16u, 100u, 1000u, 20000u}) {
    EXPECT_TRUE(pusher.send(random_frame_with_identifier(rng, size)));
    ++expected["malformed"];
  }
  const std::int64_t now = wall_clock_ns();
  const Frame valid = encode_batch({"healthy", 0, 777, 0, now, 0, 0});
  EXPECT_GT(valid.size(), 64u);
  // Cut where content is (the last bytes may be padding nothing refers to).
  for (std::size_t keep : {valid.size() / 2, valid.size() * 3 / 4, std::size_t{40}}) {
    EXPECT_TRUE(pusher.send(std::span(valid).first(keep)));
    ++expected["malformed"];
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(pusher.send(other_major_version_frame("healthy")));
    ++expected["version"];
  }
  // Well-formed frames claiming to be the healthy rank, breaking a rule:
  // events a minute past the batch's send time, a name index out of range.
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    EXPECT_TRUE(pusher.send(encode_batch({"healthy", 0, 777, seq, now, 5, 120'000'000'000})));
    ++expected["semantic"];
  }
  EXPECT_TRUE(pusher.send(bad_name_index_frame("healthy")));
  ++expected["semantic"];
  return expected;
}

TEST(HostileInputTest, InvalidFramesAreCountedByReasonAndHealthyRanksStayExact) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent agent({"starved", 5, "healthy", 0, daemon.ipc_endpoint()}, daemon.dir());
  ASSERT_TRUE(agent.start());
  ASSERT_TRUE(wait_until([&] { return rank_row(daemon, "healthy", 0).is_object(); }, 15s))
      << daemon.log();

  Counts expected;
  for (const std::string& endpoint : {daemon.tcp_endpoint(), daemon.ipc_endpoint()}) {
    SCOPED_TRACE(endpoint);
    const Counts sent = send_hostile_mix(endpoint);
    for (const auto& [reason, n] : sent)
      expected[reason] += n;
  }
  Counts seen;
  EXPECT_TRUE(wait_until([&] { return (seen = invalid_frames(daemon)) == expected; }, 15s));
  EXPECT_EQ(seen, expected);

  const auto samples = parse_prometheus(daemon.get("/metrics").body);
  ASSERT_TRUE(samples.has_value());
  for (const auto& [reason, n] : expected) {
    EXPECT_EQ(find_sample(*samples, "stallwatch_ingest_invalid_frames_total", {{"reason", reason}}),
              static_cast<double>(n))
        << reason;
  }

  ASSERT_EQ(agent.process().wait(30s), 0) << agent.output();
  json row;
  ASSERT_TRUE(wait_until(
      [&] {
        row = rank_row(daemon, "healthy", 0);
        return row.is_object() && row.value("state", "") == "finished";
      },
      15s));
  const auto report = load_agent_report(agent.report_path());
  ASSERT_TRUE(report.has_value());
  // Nothing of the rejected frames that claimed this rank leaked into it.
  expect_rank_matches_report(row, *report);
  ASSERT_EQ(row["processes"].size(), 1u);
  EXPECT_EQ(invalid_frames(daemon), expected);
}

TEST(HostileInputTest, OversizedFrameCutsOnlyItsSender) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  const Frame huge(wire::kMaxFrameBytes + 1024 * 1024, 0x5a);
  for (const std::string& endpoint : {daemon.tcp_endpoint(), daemon.ipc_endpoint()}) {
    FramePusher pusher(endpoint);
    EXPECT_TRUE(pusher.send(huge));
  }
  // ZeroMQ drops the frame and the connection before it is buffered whole:
  // the decoder never sees it, so it is not counted as too_large.
  FramePusher after(daemon.tcp_endpoint());
  const std::int64_t now = wall_clock_ns();
  ASSERT_TRUE(after.send(encode_batch({"after-flood", 2, 900, 0, now, 0, 0})));
  ASSERT_TRUE(after.send(encode_batch({"after-flood", 2, 900, 1, now + 100'000'000, 0, 0})));
  json row;
  ASSERT_TRUE(wait_until(
      [&] {
        row = rank_row(daemon, "after-flood", 2);
        return row.is_object() && row.value("events_received", 0) == 8;
      },
      15s))
      << row.dump() << daemon.log();
  EXPECT_EQ(row["batches_received"], 2);
  EXPECT_EQ(row["lost_batches"], 0);
  EXPECT_EQ(invalid_frames(daemon)["too_large"], 0u);
  EXPECT_EQ(daemon.get("/healthz").status, 200);
  EXPECT_TRUE(daemon.running());
}

}  // namespace
}  // namespace stallwatch::test
