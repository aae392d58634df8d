// SPDX-License-Identifier: MIT
#include "path_filter.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <string>

namespace stallwatch::posix {
namespace {

TEST(PathFilter, TracesDataAndSkipsSystemTreesLibrariesAndPythonSources) {
  const PathFilter filter({}, {"/proc", "/usr/lib", "/opt/venv"});
  EXPECT_TRUE(filter.traced("/data/train/shard-0001.tar"));
  EXPECT_TRUE(filter.traced("/tmp/items/0.npy"));
  EXPECT_FALSE(filter.traced("/proc/self/io"));
  EXPECT_FALSE(filter.traced("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(filter.traced("/opt/venv/lib/python3.11/site-packages/numpy/core.py"));
  EXPECT_FALSE(filter.traced("/data/plugins/libdecode.so"));
  EXPECT_FALSE(filter.traced("/data/plugins/libdecode.so.2"));
  EXPECT_FALSE(filter.traced("/home/me/train.py"));
  EXPECT_FALSE(filter.traced("/home/me/__pycache__/train.cpython-311.pyc"));
}

TEST(PathFilter, PrefixesMatchWholeComponents) {
  const PathFilter filter({"/data"}, {"/data/cache"});
  EXPECT_TRUE(filter.traced("/data"));
  EXPECT_TRUE(filter.traced("/data/x.bin"));
  EXPECT_FALSE(filter.traced("/database/x.bin"));
  EXPECT_FALSE(filter.traced("/data/cache/x.bin"));
  EXPECT_TRUE(filter.traced("/data/cached/x.bin"));
  EXPECT_FALSE(filter.traced("/tmp/x.bin"));
}

TEST(PathFilter, EnvironmentAddsToTheDefaults) {
  setenv("STALLWATCH_POSIX_INCLUDE", "/srv/data/:/mnt", 1);
  setenv("STALLWATCH_POSIX_EXCLUDE", "/srv/data/skip:relative/ignored", 1);
  const PathFilter filter = PathFilter::from_environment();
  unsetenv("STALLWATCH_POSIX_INCLUDE");
  unsetenv("STALLWATCH_POSIX_EXCLUDE");
  EXPECT_TRUE(filter.traced("/srv/data/a"));
  EXPECT_TRUE(filter.traced("/mnt/b"));
  EXPECT_FALSE(filter.traced("/srv/data/skip/c"));
  EXPECT_FALSE(filter.traced("/home/d"));
  EXPECT_FALSE(filter.traced("/tmp/stallwatch-" + std::to_string(getuid()) + "/ingest.sock"));
}

TEST(AbsolutePath, ResolvesAgainstTheWorkingDirectoryOrADirectoryDescriptor) {
  char cwd[PATH_MAX];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  char out[PATH_MAX];
  ASSERT_TRUE(absolute_path(AT_FDCWD, "/abs/file", out, sizeof(out)));
  EXPECT_STREQ(out, "/abs/file");
  ASSERT_TRUE(absolute_path(AT_FDCWD, "./rel/file", out, sizeof(out)));
  EXPECT_EQ(std::string(out), std::string(cwd) + "/rel/file");
  const int dirfd = open("/tmp", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dirfd, 0);
  ASSERT_TRUE(absolute_path(dirfd, "x.bin", out, sizeof(out)));
  EXPECT_STREQ(out, "/tmp/x.bin");
  close(dirfd);
  char tiny[8];
  EXPECT_FALSE(absolute_path(AT_FDCWD, "/a/very/long/path", tiny, sizeof(tiny)));
}

}  // namespace
}  // namespace stallwatch::posix
