// SPDX-License-Identifier: MIT
// A rank's top files by I/O time in `stallwatch top`: parsed from the API and
// shown in the rank detail view, in the web page's words.

#include "top_files_text.h"

#include <gtest/gtest.h>

#include "api_parse.h"
#include "frame.h"
#include "text_width.h"
#include "tui_fixtures.h"

namespace stallwatch::tui {
namespace {

constexpr const char* kFilesRow = R"({"rank": 0, "state": "active", "windows": {}, "processes": [],
  "top_files": {
    "10s": {"files": [
      {"path": "/data/shard-0.bin", "io_seconds": 3.25, "read_bytes": 268435456, "write_bytes": 0, "ops": 4097},
      {"path": "/ckpt/model.pt", "io_seconds": 0.5, "read_bytes": 0, "write_bytes": 1048576, "ops": 12}],
      "other": {"io_seconds": 0.002, "read_bytes": 4096, "write_bytes": 0, "ops": 2}},
    "60s": {"files": [], "other": {"io_seconds": 0, "read_bytes": 0, "write_bytes": 0, "ops": 0}},
    "total": {"files": [
      {"path": "/data/shard-0.bin", "io_seconds": 30.5, "read_bytes": 2147483648, "write_bytes": 0, "ops": 40000}],
      "other": {"io_seconds": 1.5, "read_bytes": 1024, "write_bytes": 0, "ops": 7}}}})";

RankRow files_rank() {
  const auto parsed =
      parse_job_detail(std::string(R"({"job": "alpha", "ranks": [)") + kFilesRow + "]}");
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  return parsed.ok() ? parsed.value->ranks.at(0) : RankRow{};
}

std::vector<std::string> texts(const std::vector<Line>& lines, int width) {
  std::vector<std::string> out;
  for (const Line& l : lines)
    out.push_back(clip(l.text(), width));
  return out;
}

const std::string* line_with(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& l : lines) {
    if (l.find(needle) != std::string::npos) return &l;
  }
  return nullptr;
}

TEST(TopFilesTextTest, ParsesEachWindowsFilesAndTheRest) {
  const RankRow r = files_rank();
  ASSERT_EQ(r.top_files.size(), 3u);
  const TopFilesView& t = r.top_files.at("10s");
  ASSERT_EQ(t.files.size(), 2u);
  EXPECT_EQ(t.files[0].path, "/data/shard-0.bin");
  EXPECT_EQ(t.files[0].io_seconds, 3.25);
  EXPECT_EQ(t.files[0].read_bytes, 268435456);
  EXPECT_EQ(t.files[1].write_bytes, 1048576);
  EXPECT_EQ(t.other.ops, 2);
  EXPECT_TRUE(has_top_files(r));
  EXPECT_FALSE(has_top_files(RankRow{}));
}

TEST(TopFilesTextTest, OneRowPerFileMostTimeFirstThenTheOtherFiles) {
  const RankRow r = files_rank();
  const auto lines = texts(top_files_lines(r, "10s", 100), 100);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines[0].find("TOP FILES BY I/O TIME 10 s"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("FILE"), std::string::npos);
  EXPECT_NE(lines[1].find("I/O TIME"), std::string::npos);
  for (const char* part : {"/data/shard-0.bin", "3.25 s", "256.0 MiB", "4,097"})
    EXPECT_NE(lines[2].find(part), std::string::npos) << part << " in " << lines[2];
  for (const char* part : {"/ckpt/model.pt", "500 ms", "1.0 MiB", "12"})
    EXPECT_NE(lines[3].find(part), std::string::npos) << part << " in " << lines[3];
  for (const char* part : {"other files", "2.00 ms", "4.0 KiB"})
    EXPECT_NE(lines[4].find(part), std::string::npos) << part << " in " << lines[4];

  const auto empty = texts(top_files_lines(r, "60s", 100), 100);
  ASSERT_EQ(empty.size(), 3u);
  EXPECT_NE(empty[2].find("no file I/O in this window"), std::string::npos);
  const auto total = texts(top_files_lines(r, "total", 100), 100);
  ASSERT_EQ(total.size(), 4u);
  EXPECT_NE(total[0].find("TOP FILES BY I/O TIME since start"), std::string::npos) << total[0];
  for (const char* part : {"/data/shard-0.bin", "30.5 s", "2.0 GiB", "40,000"})
    EXPECT_NE(total[2].find(part), std::string::npos) << part << " in " << total[2];
  EXPECT_NE(total[3].find("other files"), std::string::npos) << total[3];
  const auto missing = texts(top_files_lines(r, "300s", 100), 100);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].find("kept per window, not for 300 s"), std::string::npos);
  EXPECT_TRUE(top_files_lines(RankRow{}, "10s", 100).empty()) << "no files, no section";
}

TEST(TopFilesTextTest, RankDetailShowsTheTopFilesOfTheSelectedWindow) {
  TopModel model = test::two_job_model();
  TopState state;
  reconcile(state, model);
  state.view = View::kDetail;
  state.rank = 0;
  state.window = "10s";
  RankRow& r = model.detail->ranks.at(0);
  r.top_files = files_rank().top_files;
  const Canvas c = compose_frame(state, model, 110, 0);
  std::vector<std::string> lines;
  for (const Line& l : c.lines)
    lines.push_back(clip(l.text(), c.width));
  EXPECT_NE(line_with(lines, "TOP FILES BY I/O TIME"), nullptr);
  const std::string* first = line_with(lines, "/data/shard-0.bin");
  ASSERT_NE(first, nullptr);
  EXPECT_NE(first->find("3.25 s"), std::string::npos);

  r.top_files.clear();
  const Canvas without = compose_frame(state, model, 110, 0);
  for (const Line& l : without.lines)
    EXPECT_EQ(l.text().find("TOP FILES"), std::string::npos) << "no files, no section";
}

}  // namespace
}  // namespace stallwatch::tui
