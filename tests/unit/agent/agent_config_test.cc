// SPDX-License-Identifier: MIT
#include "agent_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "fresh_process.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {
namespace {

constexpr const char* kIdentityVariables[] = {"STALLWATCH_JOB",
                                              "TORCHELASTIC_RUN_ID",
                                              "SLURM_JOB_ID",
                                              "STALLWATCH_RANK",
                                              "RANK",
                                              "STALLWATCH_COLLECTOR",
                                              "STALLWATCH_ENABLE",
                                              "STALLWATCH_ROLE",
                                              "STALLWATCH_FLUSH_INTERVAL_MS",
                                              "STALLWATCH_LOG"};

// Runs `body` in a child whose environment has none of the agent's variables.
void with_clean_environment(const std::function<void()>& body) {
  test::run_in_fresh_process([&] {
    for (const char* name : kIdentityVariables)
      unsetenv(name);
    setenv("STALLWATCH_LOG", "0", 1);
    body();
  });
}

TEST(AgentConfig, DefaultsMatchTheHeader) {
  const AgentConfig config;
  EXPECT_TRUE(config.enable);
  EXPECT_EQ(config.flush_interval_ms, 20u);
  EXPECT_EQ(config.heartbeat_ms, 1000u);
  EXPECT_EQ(config.buffer_events, 16384u);
  EXPECT_EQ(config.batch_events, 8192u);
  EXPECT_EQ(config.send_hwm, 64u);
  EXPECT_EQ(config.linger_ms, 250u);
  EXPECT_EQ(config.role, ProcessRole::kMain);
  EXPECT_EQ(config.device_source, DeviceSource::kNone);
}

TEST(AgentConfig, SetsEveryKeyFromItsStringForm) {
  AgentConfig config;
  EXPECT_EQ(config.set("collector", "tcp://10.0.0.1:5557"), SW_OK);
  EXPECT_EQ(config.set("job", "train-42"), SW_OK);
  EXPECT_EQ(config.set("rank", "7"), SW_OK);
  EXPECT_EQ(config.set("enable", "0"), SW_OK);
  EXPECT_EQ(config.set("role", "worker"), SW_OK);
  EXPECT_EQ(config.set("device_source", "cuda-events"), SW_OK);
  EXPECT_EQ(config.set("flush_interval_ms", "50"), SW_OK);
  EXPECT_EQ(config.set("heartbeat_ms", "10"), SW_OK);
  EXPECT_EQ(config.set("buffer_events", "1048576"), SW_OK);
  EXPECT_EQ(config.set("batch_events", "64"), SW_OK);
  EXPECT_EQ(config.set("send_hwm", "1"), SW_OK);
  EXPECT_EQ(config.set("linger_ms", "0"), SW_OK);
  EXPECT_EQ(config.collector, "tcp://10.0.0.1:5557");
  EXPECT_EQ(config.job, "train-42");
  EXPECT_EQ(config.rank, 7);
  EXPECT_FALSE(config.enable);
  EXPECT_EQ(config.role, ProcessRole::kWorker);
  EXPECT_EQ(config.device_source, DeviceSource::kCudaEvents);
  EXPECT_EQ(config.flush_interval_ms, 50u);
  EXPECT_EQ(config.heartbeat_ms, 10u);
  EXPECT_EQ(config.buffer_events, 1048576u);
  EXPECT_EQ(config.batch_events, 64u);
  EXPECT_EQ(config.send_hwm, 1u);
  EXPECT_EQ(config.linger_ms, 0u);
}

TEST(AgentConfig, RejectsUnknownKeysAndBadValuesWithoutChangingAnything) {
  AgentConfig config;
  EXPECT_EQ(config.set("colector", "x"), SW_ERR_UNKNOWN_KEY);
  for (const auto& [key, value] :
       std::initializer_list<std::pair<const char*, const char*>>{{"flush_interval_ms", "0"},
                                                                  {"flush_interval_ms", "51"},
                                                                  {"heartbeat_ms", "9"},
                                                                  {"heartbeat_ms", "1001"},
                                                                  {"buffer_events", "1000"},
                                                                  {"buffer_events", "128"},
                                                                  {"buffer_events", "2097152"},
                                                                  {"batch_events", "63"},
                                                                  {"batch_events", "65537"},
                                                                  {"linger_ms", "10001"},
                                                                  {"rank", "-1"},
                                                                  {"rank", "2147483648"},
                                                                  {"rank", "3x"},
                                                                  {"enable", "maybe"},
                                                                  {"role", "boss"},
                                                                  {"device_source", "tpu"},
                                                                  {"job", ""},
                                                                  {"send_hwm", "0"},
                                                                  {"flush_interval_ms", ""}}) {
    EXPECT_EQ(config.set(key, value), SW_ERR_BAD_VALUE) << key << "=" << value;
  }
  const AgentConfig defaults;
  EXPECT_EQ(config.flush_interval_ms, defaults.flush_interval_ms);
  EXPECT_EQ(config.buffer_events, defaults.buffer_events);
  EXPECT_EQ(config.rank, defaults.rank);
  EXPECT_TRUE(config.enable);
}

TEST(AgentConfig, JobAndRankFollowTheDesignFallbacks) {
  with_clean_environment([] {
    AgentConfig config = AgentConfig::from_environment();
    EXPECT_EQ(config.job, host_name() + "-" + std::to_string(getpid()));
    EXPECT_EQ(config.rank, 0);
    setenv("SLURM_JOB_ID", "slurm-1", 1);
    setenv("RANK", "5", 1);
    config = AgentConfig::from_environment();
    EXPECT_EQ(config.job, "slurm-1");
    EXPECT_EQ(config.rank, 5);
    setenv("TORCHELASTIC_RUN_ID", "elastic-2", 1);
    EXPECT_EQ(AgentConfig::from_environment().job, "elastic-2");
    setenv("STALLWATCH_JOB", "mine", 1);
    setenv("STALLWATCH_RANK", "9", 1);
    config = AgentConfig::from_environment();
    EXPECT_EQ(config.job, "mine");
    EXPECT_EQ(config.rank, 9);
  });
}

TEST(AgentConfig, ReadsEveryKeyFromTheEnvironmentAndIgnoresMalformedOnes) {
  with_clean_environment([] {
    setenv("STALLWATCH_COLLECTOR", "tcp://127.0.0.1:6000", 1);
    setenv("STALLWATCH_ENABLE", "0", 1);
    setenv("STALLWATCH_ROLE", "worker", 1);
    setenv("STALLWATCH_FLUSH_INTERVAL_MS", "500", 1);  // out of range: ignored
    const AgentConfig config = AgentConfig::from_environment();
    EXPECT_EQ(config.collector, "tcp://127.0.0.1:6000");
    EXPECT_FALSE(config.enable);
    EXPECT_EQ(config.role, ProcessRole::kWorker);
    EXPECT_EQ(config.flush_interval_ms, 20u);
  });
}

// A listening-looking unix socket at `path` (bound, never listened on: stat
// sees S_ISSOCK, which is all the endpoint choice looks at). Closed and
// removed with the object.
class SocketFile {
 public:
  explicit SocketFile(std::string path) : path_(std::move(path)) {
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
    fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof(address.sun_path) - 1);
    bound_ = bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~SocketFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  SocketFile(const SocketFile&) = delete;
  SocketFile& operator=(const SocketFile&) = delete;
  bool bound() const { return bound_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

TEST(AgentConfig, DefaultEndpointIsTheUsersSocketThenTheSystemServicesThenTcp) {
  with_clean_environment([] {
    char pattern[] = "/tmp/stallwatch-endpoint-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string root = pattern;
    const std::string runtime = root + "/user";
    const std::string system_socket = root + "/run/stallwatch/ingest.sock";
    setenv("XDG_RUNTIME_DIR", runtime.c_str(), 1);
    EXPECT_EQ(default_collector_endpoint(system_socket.c_str()), "tcp://127.0.0.1:5557");
    {
      const SocketFile system(system_socket);
      ASSERT_TRUE(system.bound());
      EXPECT_EQ(default_collector_endpoint(system_socket.c_str()), "ipc://" + system_socket);
      const std::string user_socket = runtime + "/stallwatch/ingest.sock";
      const SocketFile user(user_socket);
      ASSERT_TRUE(user.bound());
      EXPECT_EQ(default_collector_endpoint(system_socket.c_str()), "ipc://" + user_socket);
    }
    // A plain file where the socket would be is not a daemon.
    std::filesystem::create_directories(root + "/run/stallwatch");
    std::ofstream(system_socket) << "not a socket";
    EXPECT_EQ(default_collector_endpoint(system_socket.c_str()), "tcp://127.0.0.1:5557");
    std::filesystem::remove_all(root);
  });
}

}  // namespace
}  // namespace stallwatch::agent
