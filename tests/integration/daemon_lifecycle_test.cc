// SPDX-License-Identifier: MIT
// stallwatchd as an operator sees it: signals stop it cleanly, and a bad
// configuration or a taken port stops it at once with a message that names
// the culprit and a distinct exit status.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

// A listening TCP socket on 127.0.0.1 holding a port for the test's duration.
class HeldPort {
 public:
  HeldPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::listen(fd_, 4) == 0) {
      socklen_t len = sizeof addr;
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
      port_ = ntohs(addr.sin_port);
    }
  }
  ~HeldPort() { ::close(fd_); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Runs stallwatchd with `args` to completion; returns its exit status.
std::optional<int> run_daemon(const std::vector<std::string>& args, const TempDir& dir,
                              std::string& output) {
  std::vector<std::string> argv{stallwatchd_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess daemon({argv, {}, dir.path() + "/stallwatchd.out"});
  if (!daemon.start()) return std::nullopt;
  const auto status = daemon.wait(15s);
  output = daemon.output();
  return status;
}

std::string loopback_endpoint() {
  return "tcp://127.0.0.1:" + std::to_string(free_tcp_port());
}

TEST(DaemonLifecycleTest, SigtermAndSigintExitZeroPromptly) {
  for (const int signal : {SIGTERM, SIGINT}) {
    DaemonProcess daemon(short_window_options());
    ASSERT_TRUE(daemon.start()) << daemon.log();
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(daemon.stop(signal, 10s), 0) << daemon.log();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_NE(daemon.log().find("shutting down"), std::string::npos) << daemon.log();
  }
}

TEST(DaemonLifecycleTest, UnknownConfigKeyExitsTwoNamingTheKey) {
  TempDir dir;
  const std::string config = dir.path() + "/bad.toml";
  std::ofstream(config) << "[engine]\nwindows = [\"2s\"]\nwindow_lenght = \"5s\"\n";
  std::string output;
  EXPECT_EQ(run_daemon({"--config", config, "--ingest", loopback_endpoint(), "--http",
                        "127.0.0.1:" + std::to_string(free_tcp_port())},
                       dir, output),
            2);
  EXPECT_NE(output.find("window_lenght"), std::string::npos) << output;
}

TEST(DaemonLifecycleTest, BadConfigValueExitsTwoNamingTheKey) {
  TempDir dir;
  const std::string config = dir.path() + "/bad.toml";
  std::ofstream(config) << "[engine]\nlateness = \"soon\"\n";
  std::string output;
  EXPECT_EQ(run_daemon({"--config", config, "--ingest", loopback_endpoint(), "--http",
                        "127.0.0.1:" + std::to_string(free_tcp_port())},
                       dir, output),
            2);
  EXPECT_NE(output.find("lateness"), std::string::npos) << output;
}

TEST(DaemonLifecycleTest, ApiBeyondLoopbackWithoutATokenIsRefusedBeforeListening) {
  // Refused at validation, before anything binds: nothing is exposed.
  TempDir dir;
  std::string output;
  EXPECT_EQ(run_daemon({"--ingest", loopback_endpoint(), "--http", "0.0.0.0:1"}, dir, output), 2);
  EXPECT_NE(output.find("'0.0.0.0:1' can be reached from other hosts but no token is set"),
            std::string::npos)
      << output;
}

TEST(DaemonLifecycleTest, HttpPortInUseExitsOneNamingTheAddress) {
  TempDir dir;
  HeldPort held;
  ASSERT_GT(held.port(), 0);
  const std::string address = "127.0.0.1:" + std::to_string(held.port());
  std::string output;
  EXPECT_EQ(run_daemon({"--ingest", loopback_endpoint(), "--http", address}, dir, output), 1);
  EXPECT_NE(output.find(address), std::string::npos) << output;
}

TEST(DaemonLifecycleTest, IngestPortInUseExitsOneNamingTheEndpoint) {
  TempDir dir;
  HeldPort held;
  ASSERT_GT(held.port(), 0);
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(held.port());
  std::string output;
  EXPECT_EQ(
      run_daemon({"--ingest", endpoint, "--http", "127.0.0.1:" + std::to_string(free_tcp_port())},
                 dir, output),
      1);
  EXPECT_NE(output.find(endpoint), std::string::npos) << output;
}

}  // namespace
}  // namespace stallwatch::test
