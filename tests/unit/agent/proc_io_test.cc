// SPDX-License-Identifier: MIT
#include "proc_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace stallwatch::agent {
namespace {

TEST(ProcIo, ParsesTheKernelsFields) {
  const char* text =
      "rchar: 123456789\nwchar: 42\nsyscr: 10\nsyscw: 3\nread_bytes: 8192\n"
      "write_bytes: 4096\ncancelled_write_bytes: 0\n";
  ProcIo io;
  ASSERT_TRUE(parse_proc_io(text, &io));
  EXPECT_EQ(io.rchar, 123456789);
  EXPECT_EQ(io.read_bytes, 8192);
}

TEST(ProcIo, RefusesTextWithoutBothFields) {
  ProcIo io;
  EXPECT_FALSE(parse_proc_io("rchar: 1\nwchar: 2\n", &io));
  EXPECT_FALSE(parse_proc_io("", &io));
  EXPECT_FALSE(parse_proc_io("rchar: x\nread_bytes: 1\n", &io));
}

TEST(ProcIo, CountsTheBytesThisProcessReads) {
  char path[] = "/tmp/stallwatch-proc-io-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::vector<char> bytes(1 << 20, 'x');
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ProcIo before;
  if (!read_proc_io(&before)) GTEST_SKIP() << "/proc/self/io is not readable here";
  std::vector<char> back(bytes.size());
  ASSERT_EQ(pread(fd, back.data(), back.size(), 0), static_cast<ssize_t>(back.size()));
  ProcIo after;
  ASSERT_TRUE(read_proc_io(&after));
  EXPECT_GE(after.rchar - before.rchar, static_cast<std::int64_t>(bytes.size()));
  close(fd);
  unlink(path);
}

}  // namespace
}  // namespace stallwatch::agent
