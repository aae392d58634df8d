// SPDX-License-Identifier: MIT
// Floods against a real daemon while two well-behaved agents run: thousands
// of idle TCP connections to the ingest port, thousands of idle HTTP
// connections over the connection limit (the oldest evicted), slow-loris
// HTTP clients holding the limit busy (the excess refused) and a thousand
// WebSocket clients that mostly never read. The agents' numbers still equal
// what they recorded, /healthz keeps answering, and the excess is evicted,
// refused or timed out and counted. A heavier version: bench/e2e/flood_bench.py.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "integration_fixture.h"
#include "ws_client.h"

namespace stallwatch::test {
namespace {

constexpr int kRanks = 2;

// Raises this process's descriptor limit to `wanted` if the hard limit
// allows; returns how many descriptors the flood may use.
int flood_budget(int wanted) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  const rlim_t need = static_cast<rlim_t>(wanted) + 256;
  if (limit.rlim_cur < need) {
    limit.rlim_cur = std::min(need, limit.rlim_max);
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  return static_cast<int>(std::min<rlim_t>(static_cast<rlim_t>(wanted), limit.rlim_cur - 256));
}

int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// `count` connections that never send a byte; closed on destruction.
struct IdleConnections {
  IdleConnections(int port, int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = connect_loopback(port);
      if (fd >= 0) fds.push_back(fd);
    }
  }
  ~IdleConnections() {
    for (int fd : fds)
      ::close(fd);
  }
  // Connections the server has closed (a 503 answer, then end of stream).
  int closed_by_server() const {
    int closed = 0;
    for (int fd : fds) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) continue;
      char buffer[512];
      ssize_t n = 0;
      while ((n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0) {
      }
      if (n == 0 || (n < 0 && errno != EAGAIN)) ++closed;
    }
    return closed;
  }
  std::vector<int> fds;
};

// The slowest of `probes` /healthz requests, one every 50 ms.
std::chrono::milliseconds slowest_healthz(const DaemonProcess& daemon, int probes) {
  std::chrono::milliseconds slowest{0};
  for (int i = 0; i < probes; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const int status = daemon.get("/healthz").status;
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0);
    if (status != 200) return std::chrono::milliseconds::max();
    slowest = std::max(slowest, took);
    std::this_thread::sleep_for(50ms);
  }
  return slowest;
}

// A sample of /metrics by exact series name; -1 when absent.
double metric(const DaemonProcess& daemon, const std::string& name) {
  const std::string body = daemon.get("/metrics").body;
  const std::string key = "\n" + name + " ";
  const auto at = body.find(key);
  if (at == std::string::npos) return -1;
  return std::stod(body.substr(at + key.size()));
}

class FloodTest : public ::testing::Test {
 protected:
  void start(const std::string& http_toml) {
    DaemonOptions options = short_window_options();
    options.config_toml += http_toml;
    daemon_ = std::make_unique<DaemonProcess>(options);
    ASSERT_TRUE(daemon_->start()) << daemon_->log();
    for (int rank = 0; rank < kRanks; ++rank) {
      agents_.push_back(std::make_unique<ScriptedAgent>(
          AgentRun{"starved", 5, "healthy", rank, daemon_->ipc_endpoint()}, daemon_->dir()));
      ASSERT_TRUE(agents_.back()->start());
    }
  }

  // Every agent finished cleanly and its rank equals what it recorded.
  void expect_agents_unaffected() {
    for (int rank = 0; rank < kRanks; ++rank) {
      SCOPED_TRACE("rank " + std::to_string(rank));
      ScriptedAgent& agent = *agents_[static_cast<std::size_t>(rank)];
      ASSERT_EQ(agent.process().wait(30s), 0) << agent.output();
      json row;
      ASSERT_TRUE(wait_until(
          [&] {
            row = rank_row(*daemon_, "healthy", rank);
            return row.is_object() && row.value("state", "") == "finished";
          },
          15s))
          << daemon_->log();
      const auto report = load_agent_report(agent.report_path());
      ASSERT_TRUE(report.has_value());
      expect_rank_matches_report(row, *report);
    }
  }

  std::unique_ptr<DaemonProcess> daemon_;
  std::vector<std::unique_ptr<ScriptedAgent>> agents_;
};

TEST_F(FloodTest, IdleIngestConnectionsLeaveAgentsAndHealthzAlone) {
  // The daemon accepts about a hundred connections a second on a loaded
  // 2-core machine; bench/e2e/flood_bench.py goes to 10 000.
  const int wanted = flood_budget(800);
  start("");
  IdleConnections flood(daemon_->tcp_port(), wanted);
  std::printf("%zu idle connections to the ingest port\n", flood.fds.size());
  EXPECT_EQ(flood.fds.size(), static_cast<std::size_t>(wanted));
  const auto slowest = slowest_healthz(*daemon_, 40);
  std::printf("slowest /healthz during the flood: %lld ms\n",
              static_cast<long long>(slowest.count()));
  EXPECT_LT(slowest, 500ms);
  expect_agents_unaffected();
  const json status = get_json(*daemon_, "/api/v1/status");
  EXPECT_GE(status["ingest"].value("connections_accepted", std::uint64_t{0}),
            static_cast<std::uint64_t>(flood.fds.size()));
}

TEST_F(FloodTest, ConnectionsOverABusyHttpLimitAreRefusedAndSlowLorisTimedOut) {
  constexpr int kLimit = 64;
  const int wanted = flood_budget(1000 + kLimit);
  start("[http]\nmax_connections = 64\nread_timeout = \"2s\"\n");
  // Slow-loris clients fill the limit, each with a request begun (busy, so
  // none can be evicted): one header byte every 200 ms, the whole request
  // in ~7 s. No HTTP probe until they are cut off: it would be refused.
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  IdleConnections loris(daemon_->http_port(), kLimit);
  ASSERT_EQ(loris.fds.size(), static_cast<std::size_t>(kLimit));
  for (int fd : loris.fds)
    ASSERT_EQ(::send(fd, &request[0], 1, MSG_NOSIGNAL), 1);
  const auto flood_start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(300ms);
  IdleConnections flood(daemon_->http_port(), wanted - kLimit);
  std::printf("%zu idle HTTP connections, %d slow-loris ones holding the limit\n", flood.fds.size(),
              kLimit);
  int loris_closed_at_byte = -1;
  for (std::size_t i = 1; i < request.size() && loris_closed_at_byte < 0; ++i) {
    std::this_thread::sleep_for(200ms);
    for (int fd : loris.fds) {
      if (::send(fd, &request[i], 1, MSG_NOSIGNAL) != 1 && loris_closed_at_byte < 0) {
        loris_closed_at_byte = static_cast<int>(i);
      }
    }
  }
  // Closed by read_timeout (2 s) long before the request was complete.
  EXPECT_GE(loris_closed_at_byte, 0) << "the slow-loris clients were never cut off";
  EXPECT_LT(loris_closed_at_byte, 20);
  // Their slots free up: /healthz answers again.
  ASSERT_TRUE(wait_until([&] { return daemon_->get("/healthz").status == 200; }, 5s));
  const double recovered_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - flood_start).count();
  std::printf("slow-loris cut off at byte %d; /healthz answered again %.1f s after the flood\n",
              loris_closed_at_byte, recovered_s);
  EXPECT_LT(slowest_healthz(*daemon_, 20), 500ms);
  expect_agents_unaffected();
  // Every flood connection was answered with a 503 while the slots were
  // busy, or admitted afterwards and then evicted or timed out: all closed.
  EXPECT_TRUE(wait_until(
      [&] { return flood.closed_by_server() >= static_cast<int>(flood.fds.size()); }, 5s));
  const double refused = metric(*daemon_, "stallwatch_http_connections_refused_total");
  const double evicted = metric(*daemon_, "stallwatch_http_connections_evicted_total");
  const double timeouts = metric(*daemon_, "stallwatch_http_timeouts_total");
  std::printf("refused %.0f, evicted %.0f, timed out %.0f\n", refused, evicted, timeouts);
  EXPECT_GT(refused, 0);
  EXPECT_GE(timeouts, static_cast<double>(kLimit));
  EXPECT_GE(refused + evicted + timeouts, static_cast<double>(flood.fds.size() + kLimit));
}

TEST_F(FloodTest, IdleConnectionsHoldingTheHttpLimitAreEvictedSoHealthzAnswers) {
  constexpr int kLimit = 64;
  const int wanted = flood_budget(2000);
  // read_timeout stays 10 s: without eviction the flood would hold every
  // slot that long.
  start("[http]\nmax_connections = 64\n");
  IdleConnections flood(daemon_->http_port(), wanted);
  std::printf("%zu idle HTTP connections, limit %d\n", flood.fds.size(), kLimit);
  const auto slowest = slowest_healthz(*daemon_, 20);
  std::printf("slowest /healthz while idle connections hold the limit: %lld ms\n",
              static_cast<long long>(slowest.count()));
  EXPECT_LT(slowest, 500ms);
  // The oldest were evicted to admit the newer ones (and the first probe;
  // the next ones take the slot the previous one freed); nothing was refused.
  EXPECT_GE(flood.closed_by_server(), static_cast<int>(flood.fds.size()) - kLimit);
  const double evicted = metric(*daemon_, "stallwatch_http_connections_evicted_total");
  const double refused = metric(*daemon_, "stallwatch_http_connections_refused_total");
  std::printf("evicted %.0f, refused %.0f\n", evicted, refused);
  EXPECT_GE(evicted, static_cast<double>(flood.fds.size()) - kLimit + 1);
  EXPECT_EQ(refused, 0);
  expect_agents_unaffected();
}

TEST_F(FloodTest, AThousandWebSocketClientsMostlyNotReadingLeaveAgentsAndHealthzAlone) {
  constexpr int kClients = 1000;
  constexpr int kReaders = 50;
  flood_budget(kClients);
  start("[http]\nmax_connections = 1100\n");
  std::vector<std::unique_ptr<WsClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<WsClient>(daemon_->http_port()));
    ASSERT_TRUE(clients.back()->ok()) << "client " << i;
    if (i < kReaders) clients.back()->send_text(R"({"type": "subscribe", "job": "healthy"})");
  }
  EXPECT_EQ(metric(*daemon_, "stallwatch_websocket_sessions"), kClients);
  const auto slowest = slowest_healthz(*daemon_, 40);
  std::printf("%d WebSocket clients; slowest /healthz %lld ms\n", kClients,
              static_cast<long long>(slowest.count()));
  EXPECT_LT(slowest, 500ms);
  // The readers still get ticks.
  for (int i = 0; i < kReaders; ++i) {
    auto message = clients[static_cast<std::size_t>(i)]->read(5s);
    ASSERT_TRUE(message.has_value()) << "reader " << i;
  }
  expect_agents_unaffected();
  std::printf("ticks skipped for slow readers: %.0f\n",
              metric(*daemon_, "stallwatch_websocket_ticks_skipped_total"));
}

// The daemon raises its soft descriptor limit to the hard one (a soft 1024,
// systemd's default, would cap it at about a thousand connections).
TEST(DescriptorLimitTest, TheDaemonRaisesItsSoftLimitToTheHardOne) {
  rlimit ours{};
  getrlimit(RLIMIT_NOFILE, &ours);
  if (ours.rlim_max != RLIM_INFINITY && ours.rlim_max <= 1024) GTEST_SKIP() << "hard limit 1024";
  rlimit low{1024, ours.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  DaemonProcess daemon;
  const bool started = daemon.start();
  setrlimit(RLIMIT_NOFILE, &ours);
  ASSERT_TRUE(started) << daemon.log();
  std::ifstream limits("/proc/" + std::to_string(daemon.pid()) + "/limits");
  std::string line;
  while (std::getline(limits, line) && line.rfind("Max open files", 0) != 0) {
  }
  std::istringstream fields(line.substr(std::string("Max open files").size()));
  std::string soft, hard;
  fields >> soft >> hard;
  EXPECT_EQ(soft, hard) << line;
  EXPECT_NE(soft, "1024") << line;
  EXPECT_NE(daemon.log().find("open descriptors"), std::string::npos) << daemon.log();
}

}  // namespace
}  // namespace stallwatch::test
