// SPDX-License-Identifier: MIT
#include "ingest/ipc_endpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace stallwatch::collector {
namespace {

// Sets or unsets XDG_RUNTIME_DIR for one test and restores it.
class RuntimeDirOverride {
 public:
  explicit RuntimeDirOverride(const char* value) {
    if (const char* old = std::getenv("XDG_RUNTIME_DIR")) saved_ = old;
    if (value == nullptr) {
      ::unsetenv("XDG_RUNTIME_DIR");
    } else {
      ::setenv("XDG_RUNTIME_DIR", value, 1);
    }
  }
  ~RuntimeDirOverride() {
    if (saved_) {
      ::setenv("XDG_RUNTIME_DIR", saved_->c_str(), 1);
    } else {
      ::unsetenv("XDG_RUNTIME_DIR");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(IpcEndpointTest, DefaultsUnderXdgRuntimeDir) {
  RuntimeDirOverride env("/run/user/1234");
  EXPECT_EQ(default_ipc_endpoint(), "ipc:///run/user/1234/stallwatch/ingest.sock");
}

TEST(IpcEndpointTest, DefaultsUnderTmpWithoutXdgRuntimeDir) {
  const std::string expected =
      "ipc:///tmp/stallwatch-" + std::to_string(::getuid()) + "/ingest.sock";
  {
    RuntimeDirOverride env(nullptr);
    EXPECT_EQ(default_ipc_endpoint(), expected);
  }
  RuntimeDirOverride env("");
  EXPECT_EQ(default_ipc_endpoint(), expected);
}

TEST(IpcEndpointTest, LeavesOtherEndpointsAlone) {
  EXPECT_EQ(prepare_ipc_endpoint("tcp://127.0.0.1:5557"), std::nullopt);
  EXPECT_EQ(prepare_ipc_endpoint("ipc://*"), std::nullopt);
  EXPECT_EQ(prepare_ipc_endpoint("ipc://@stallwatch-abstract"), std::nullopt);
}

TEST(IpcEndpointTest, RefusesAPathTooLongForASocket) {
  const auto error = prepare_ipc_endpoint("ipc:///tmp/" + std::string(120, 'x'));
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("longer than 107"), std::string::npos) << *error;
}

TEST(IpcEndpointTest, CreatesMissingParentsPrivately) {
  char pattern[] = "/tmp/sw-ipc-XXXXXX";
  const std::string root = ::mkdtemp(pattern);
  const std::string dir = root + "/a/b";
  EXPECT_EQ(prepare_ipc_endpoint("ipc://" + dir + "/ingest.sock"), std::nullopt);
  EXPECT_EQ(std::filesystem::status(dir).permissions(), std::filesystem::perms::owner_all);
  std::filesystem::remove_all(root);
}

TEST(IpcEndpointTest, RefusesADirectoryOwnedBySomeoneElse) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to hand a directory to another user";
  char pattern[] = "/tmp/sw-ipc-XXXXXX";
  const std::string dir = ::mkdtemp(pattern);
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  const auto error = prepare_ipc_endpoint("ipc://" + dir + "/ingest.sock");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, dir + " is owned by another user (uid 65534)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace stallwatch::collector
