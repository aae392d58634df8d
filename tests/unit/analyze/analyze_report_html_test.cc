// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

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

// A kernel and an operator named like markup must show as text: the page
// has exactly one script element, its own.
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
  EXPECT_EQ(count(page, "<script"), 1u);
  EXPECT_EQ(count(page, "<img"), 0u);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
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
  EXPECT_NE(page.find("<svg id=\"hta-temporal-chart\""), std::string::npos);
  EXPECT_NE(page.find("<svg id=\"hta-idle-chart\""), std::string::npos);
  EXPECT_NE(page.find("<svg id=\"hta-overhead-chart\""), std::string::npos);
  EXPECT_EQ(analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"), "--html",
                     dir.path() + "/no/such/dir/report.html"})
                .code,
            1);
}

}  // namespace
}  // namespace stallwatch::collector
