// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <stallwatch/curve_key.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "keys/allow_list.h"
#include "keys/curve_key_pair.h"
#include "keys/key_files.h"
#include "keys/state_dir.h"

namespace stallwatch::collector {
namespace {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/sw-keys-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

unsigned mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

class KeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!curve_available()) GTEST_SKIP() << "libzmq without CURVE";
  }
};

TEST_F(KeysTest, AKeyPairIsTwoZ85KeysAndThePublicOneFollowsFromTheSecret) {
  std::string error;
  const auto pair = generate_key_pair(error);
  ASSERT_TRUE(pair) << error;
  EXPECT_TRUE(wire::is_z85_key(pair->public_key));
  EXPECT_TRUE(wire::is_z85_key(pair->secret_key));
  EXPECT_NE(pair->public_key, pair->secret_key);
  EXPECT_EQ(public_key_of(pair->secret_key), pair->public_key);
  EXPECT_EQ(public_key_of("too short"), std::nullopt);
}

TEST_F(KeysTest, TheStateDirectoryKeepsOnePairWithAPrivateSecretFile) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/state";
  std::string error;
  bool created = false;
  const auto first = load_or_create_key_pair(dir, created, error);
  ASSERT_TRUE(first) << error;
  EXPECT_TRUE(created);
  EXPECT_EQ(mode_of(dir + "/curve.key"), 0600u);
  EXPECT_EQ(mode_of(dir), 0700u);
  EXPECT_EQ(read_key_file(dir + "/curve.pub", error), first->public_key);

  // A restart reads the same pair; a lost public key file comes back.
  std::filesystem::remove(dir + "/curve.pub");
  const auto again = load_or_create_key_pair(dir, created, error);
  ASSERT_TRUE(again) << error;
  EXPECT_FALSE(created);
  EXPECT_EQ(again->public_key, first->public_key);
  EXPECT_EQ(again->secret_key, first->secret_key);
  EXPECT_EQ(read_key_file(dir + "/curve.pub", error), first->public_key);
}

TEST_F(KeysTest, ASecretKeyFileOthersCanReadIsRefused) {
  TempDir tmp;
  std::string error;
  bool created = false;
  ASSERT_TRUE(load_or_create_key_pair(tmp.path(), created, error)) << error;
  const std::string secret = tmp.path() + "/curve.key";
  ::chmod(secret.c_str(), 0644);
  EXPECT_EQ(load_or_create_key_pair(tmp.path(), created, error), std::nullopt);
  EXPECT_NE(error.find("chmod 600"), std::string::npos) << error;
}

TEST_F(KeysTest, AnAgentKeyPairIsNeverWrittenOverAnExistingFile) {
  TempDir tmp;
  std::string error;
  const auto pair = generate_key_pair(error);
  ASSERT_TRUE(pair);
  const std::string path = tmp.path() + "/agent.key";
  ASSERT_EQ(write_key_pair(*pair, path, path + ".pub"), "");
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(read_secret_key_file(path, error), pair->secret_key) << error;
  EXPECT_EQ(read_key_file(path + ".pub", error), pair->public_key);
  EXPECT_NE(write_key_pair(*pair, path, path + ".pub"), "");
}

TEST(AllowListTest, OneKeyPerLineWithCommentsAndDuplicatesDropped) {
  const std::string a(40, 'a');
  const std::string b(40, 'B');
  std::string error;
  const auto keys =
      parse_allow_list("# agents of job 7\n\n" + a + " node-01\n  " + b + "\n" + a + "\n", error);
  ASSERT_TRUE(keys) << error;
  EXPECT_EQ(*keys, (std::vector<std::string>{a, b}));
}

TEST(AllowListTest, ALineThatIsNotAKeyIsAnErrorNamingTheLine) {
  std::string error;
  EXPECT_EQ(parse_allow_list(std::string(40, 'a') + "\nnot-a-key\n", error), std::nullopt);
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  EXPECT_EQ(read_allow_list("/nonexistent/allow-list", error), std::nullopt);
}

}  // namespace
}  // namespace stallwatch::collector
