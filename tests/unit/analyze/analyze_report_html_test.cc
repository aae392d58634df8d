// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "analyze_run.h"
#include "html_writer.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(AnalyzeReportHtml, EscapesMarkupCharacters) {
  EXPECT_EQ(html_escape(R"(<a href="x">'&'</a>)"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(html_escape("aten::mm"), "aten::mm");
}

// A kernel and an operator named like markup must show as text, in the
// tables and in the charts' figures: the page has exactly its own four
// script elements (chart figures, chart library, chart drawing, sorting).
TEST(AnalyzeReportHtml, AHostileKernelNameIsEscaped) {
  const std::string trace = R"json({"traceEvents": [
    {"ph":"X","cat":"cpu_op","name":"<img src=x onerror=alert(2)>","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":4,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"<script>alert(1)</script>","pid":0,"tid":7,"ts":20,"dur":20,"args":{"stream":7,"correlation":1}}
  ]})json";
  testing::TempDir dir;
  const std::string html = dir.path() + "/report.html";
  const CommandRun run = analyze({dir.write("hostile.json", trace), "--html", html});
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string page = read_file(html);
  ASSERT_FALSE(page.empty());
  EXPECT_EQ(count(page, "<script"), 4u);
  EXPECT_EQ(count(page, "</script"), 4u);
  EXPECT_EQ(count(page, "<img"), 0u);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(page.find(R"("label":"rank 0 \u003cimg src=x onerror")"), std::string::npos);
  // Self-contained: nothing is loaded from anywhere.
  EXPECT_EQ(count(page, "src=\""), 0u);
  EXPECT_EQ(count(page, "href="), 0u);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
}

TEST(AnalyzeReportHtml, HasTheTextReportsSections) {
  testing::TempDir dir;
  const std::string html = dir.path() + "/report.html";
  const CommandRun run =
      analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
               testing::test_data("kineto/two-rank/sampled_rank-1.json.gz"), "--html", html});
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string page = read_file(html);
  for (const char* id : {"hta-temporal", "hta-steps", "hta-idle", "hta-kernels", "hta-launches",
                         "hta-queues", "hta-operators", "stallwatch-view"}) {
    EXPECT_NE(page.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  }
  // The charts are drawn in the page by the dashboard's chart library,
  // inlined: an empty placeholder each, and uPlot's own code and style.
  for (const char* id :
       {"hta-temporal-chart", "hta-idle-chart", "hta-kernel-chart", "hta-overhead-chart"}) {
    EXPECT_NE(page.find(std::string("<div id=\"") + id + "\" class=\"chart\"></div>"),
              std::string::npos)
        << id;
    EXPECT_NE(page.find(std::string("\"id\":\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(page.find("https://github.com/leeoniya/uPlot"), std::string::npos);
  EXPECT_NE(page.find(".uplot"), std::string::npos);
  EXPECT_EQ(page.find("<svg"), std::string::npos);
  // Kineto traces have no file calls: no top-files section, not even empty.
  EXPECT_EQ(page.find("top-files"), std::string::npos);
  EXPECT_EQ(page.find("Top files"), std::string::npos);
  EXPECT_EQ(analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"), "--html",
                     dir.path() + "/no/such/dir/report.html"})
                .code,
            1);
}

// The cells of each row of the HTML table `id`, unescaped enough for the
// figures (numbers, dashes, "job").
std::vector<std::vector<std::string>> html_rows(const std::string& page, const std::string& id) {
  std::vector<std::vector<std::string>> rows;
  const auto start = page.find("<table id=\"" + id + "\"");
  if (start == std::string::npos) return rows;
  const auto end = page.find("</table>", start);
  const std::string table = page.substr(start, end - start);
  const std::regex row_re("<tr>(.*?)</tr>");
  const std::regex cell_re("<td[^>]*>([^<]*)</td>");
  for (std::sregex_iterator r(table.begin(), table.end(), row_re), e; r != e; ++r) {
    const std::string row = (*r)[1];
    std::vector<std::string> cells;
    for (std::sregex_iterator c(row.begin(), row.end(), cell_re); c != e; ++c)
      cells.push_back((*c)[1]);
    if (!cells.empty()) rows.push_back(std::move(cells));
  }
  return rows;
}

// The text line of a table row: its non-empty cells separated by blanks.
bool text_has_row(const std::string& text, const std::vector<std::string>& cells) {
  std::string pattern = "\n *";
  for (const std::string& c : cells) {
    if (c.empty()) continue;
    std::string quoted;
    for (const char ch : c)
      quoted +=
          std::string(std::strchr("\\^$.|?*+()[]{}", ch) != nullptr && ch != 0 ? "\\" : "") + ch;
    pattern += quoted + " +";
  }
  pattern.resize(pattern.size() - 2);
  pattern += " *\n";
  return std::regex_search(text, std::regex(pattern));
}

// The text and HTML reports print their shared tables from the same cells:
// every HTML row is a text row, in the same column order.
TEST(AnalyzeReportHtml, ShowsTheTextReportsFigures) {
  testing::TempDir dir;
  const std::string html = dir.path() + "/report.html";
  const CommandRun run = analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
                                  testing::test_data("kineto/two-rank/sampled_rank-1.json.gz"),
                                  "--batch-size", "64", "--no-engine", "--html", html});
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string page = read_file(html);
  const std::map<std::string, std::size_t> tables{
      {"hta-temporal-table", 2}, {"hta-steps-table", 3},    {"hta-idle-table", 0},
      {"hta-kernel-types", 0},   {"hta-launches-table", 2}, {"hta-queues-table", 0},
      {"hta-launch-calls", 0}};
  for (const auto& [id, expected_rows] : tables) {
    const auto rows = html_rows(page, id);
    if (expected_rows > 0) {
      EXPECT_EQ(rows.size(), expected_rows) << id;
    } else {
      EXPECT_FALSE(rows.empty()) << id;
    }
    for (const auto& row : rows)
      EXPECT_TRUE(text_has_row(run.out, row)) << id << ": " << row.front() << "\n" << run.out;
  }
  // The job's QPS row is the last of the steps table.
  const auto steps = html_rows(page, "hta-steps-table");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps.back().front(), "job");
  EXPECT_EQ(steps.back().back(), "207.4");
}

// Two ranks of the DLIO trace: each rank's ten files by I/O time over the
// whole run and its "other files" row, the text report's rows in its order
// (analyze_command_test checks rank 0's figures against the .pfw), in a
// sortable table of their own section.
TEST(AnalyzeReportHtml, APfwReportListsEachRanksTopFiles) {
  testing::TempDir dir;
  const std::string html = dir.path() + "/report.html";
  const CommandRun run =
      analyze({testing::test_data("dftracer-dlio/trace-0-of-8.pfw.gz"),
               testing::test_data("dftracer-dlio/trace-1-of-8.pfw.gz"), "--html", html});
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string page = read_file(html);
  for (const char* id : {"dfanalyzer", "stallwatch-view", "top-files"})
    EXPECT_NE(page.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  EXPECT_EQ(page.find("<section id=\"hta-"), std::string::npos);
  EXPECT_NE(page.find("<table id=\"top-files-table\" class=\"sortable\"><thead><tr><th>job/"
                      "rank</th><th>file</th><th>I/O s</th><th>read bytes</th><th>written "
                      "bytes</th><th>calls</th></tr>"),
            std::string::npos);
  const auto rows = html_rows(page, "top-files-table");
  ASSERT_EQ(rows.size(), 22u);
  const std::string train = "/p/lustre3/izzet/dlio-benchmark-test/unet3d_v100_hdf5_168/data/train/";
  EXPECT_EQ(rows[0], (std::vector<std::string>{"dftracer/0", train + "img_003_of_168.hdf5",
                                               "0.868462", "732909805", "0", "65"}));
  EXPECT_EQ(rows[10], (std::vector<std::string>{"dftracer/0", "other files", "7.751812",
                                                "7329098050", "11420", "665"}));
  EXPECT_EQ(rows[11], (std::vector<std::string>{"dftracer/1", train + "img_039_of_168.hdf5",
                                                "0.908492", "732909805", "0", "65"}));
  EXPECT_EQ(rows[21].at(1), "other files");
  const auto text_at = run.out.find("top files by I/O time (whole run)");
  ASSERT_NE(text_at, std::string::npos) << run.out;
  const std::string text = run.out.substr(text_at);
  std::size_t at = 0;
  for (const auto& row : rows) {
    EXPECT_TRUE(text_has_row(text, row)) << row.at(0) << " " << row.at(1) << "\n" << text;
    // Same order: each row's file comes after the previous one's.
    const auto found = text.find(row.at(1) + " ", at);
    ASSERT_NE(found, std::string::npos) << row.at(1);
    at = found;
  }
}

}  // namespace
}  // namespace stallwatch::collector
