// SPDX-License-Identifier: MIT
#include "analyze/analyze_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_run.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

std::vector<std::string> dlio_files() {
  std::vector<std::string> files;
  for (int r = 0; r < 8; ++r) {
    files.push_back(
        testing::test_data("dftracer-dlio/trace-" + std::to_string(r) + "-of-8.pfw.gz"));
  }
  return files;
}

TEST(AnalyzeCommand, UsageErrorsExitWithTwo) {
  EXPECT_EQ(analyze({}).code, 2);
  const CommandRun unknown = analyze({"--frobnicate", "x.pfw"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("The following argument was not expected: --frobnicate"),
            std::string::npos)
      << unknown.err;
  EXPECT_EQ(analyze({"x.pfw", "--granularity", "soon"}).code, 2);
  const CommandRun bare = analyze({"x.pfw", "--granularity", "5"});
  EXPECT_EQ(bare.code, 2);
  EXPECT_NE(bare.err.find("--granularity: '5' has no unit"), std::string::npos) << bare.err;
  const CommandRun preset = analyze({"x.pfw", "--mapping", "slurm"});
  EXPECT_EQ(preset.code, 2);
  EXPECT_NE(preset.err.find("--mapping: unknown preset 'slurm'"), std::string::npos) << preset.err;
  const CommandRun help = analyze({"--help"});
  EXPECT_EQ(help.code, 0);
  // The rule that puts data-loader worker files in their parent's rank.
  EXPECT_NE(help.out.find("joins its parent process's rank"), std::string::npos) << help.out;
}

TEST(AnalyzeCommand, AnUnreadableFileExitsWithOne) {
  const CommandRun r = analyze({"/nonexistent/trace-0-of-1.pfw"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot open /nonexistent/trace-0-of-1.pfw"), std::string::npos) << r.err;
}

TEST(AnalyzeCommand, ABadRulesFileIsAUsageError) {
  TempDir dir;
  const std::string rules =
      dir.write("rules.toml", "[classes]\n[[classes.rule]]\nclass = \"gpu\"\n");
  const CommandRun r = analyze({dlio_files()[0], "--classes", rules});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("rules.toml:3: classes.rule[1].class: unknown class 'gpu'"),
            std::string::npos)
      << r.err;
}

TEST(AnalyzeCommand, JsonCarriesDfanalyzerFieldsAndTheEngineView) {
  std::vector<std::string> words = dlio_files();
  words.insert(words.end(), {"--json", "--mapping", "dlio", "--granularity", "1s"});
  const CommandRun r = analyze(words);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& df = doc.at("dfanalyzer");
  EXPECT_DOUBLE_EQ(df.at("job_time_seconds").get<double>(), 56.695354);
  EXPECT_DOUBLE_EQ(df.at("compute_seconds").get<double>(), 272.355584);
  EXPECT_DOUBLE_EQ(df.at("fetch_seconds").get<double>(), 126.178714);
  EXPECT_EQ(df.at("ops").at("compute").get<int>(), 200);
  EXPECT_EQ(df.at("ops").at("fetch").get<int>(), 160);
  EXPECT_EQ(df.at("ranks").size(), 8u);
  EXPECT_DOUBLE_EQ(df.at("binned").at("granularity_seconds").get<double>(), 1.0);
  const auto& ranks = doc.at("stallwatch").at("jobs").at(0).at("ranks");
  ASSERT_EQ(ranks.size(), 8u);
  // Loading runs on the main thread between compute steps: the loop waits.
  EXPECT_EQ(ranks.at(0).at("verdict").get<std::string>(), "data-starved");
  EXPECT_EQ(ranks.at(0).at("device_source").get<std::string>(), "compute-proxy");
  EXPECT_EQ(doc.at("reads").size(), 8u);
}

// Rank 0 of the DLIO trace reads 27 files (named by FH records, the calls by
// args.fhash) in 1 315 POSIX calls; summed independently from the .pfw: the
// most time, 868 462 µs in 65 calls reading 732 909 805 bytes, is on
// img_003_of_168.hdf5, and all calls take 16 005 156 µs.
TEST(AnalyzeCommand, APfwTracesTopFilesByIoTimeOverTheWholeRun) {
  const std::string file = dlio_files()[0];
  const CommandRun r = analyze({file, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& top = doc.at("stallwatch").at("jobs").at(0).at("ranks").at(0).at("top_files");
  ASSERT_TRUE(top.is_object()) << top.dump();
  const auto& files = top.at("files");
  ASSERT_EQ(files.size(), 10u);
  EXPECT_EQ(files[0].at("path"),
            "/p/lustre3/izzet/dlio-benchmark-test/unet3d_v100_hdf5_168/data/train/"
            "img_003_of_168.hdf5");
  EXPECT_DOUBLE_EQ(files[0].at("io_seconds").get<double>(), 0.868462);
  EXPECT_EQ(files[0].at("read_bytes").get<std::int64_t>(), 732'909'805);
  EXPECT_EQ(files[0].at("write_bytes").get<std::int64_t>(), 0);
  EXPECT_EQ(files[0].at("ops").get<std::int64_t>(), 65);
  std::int64_t ops = top.at("other").at("ops").get<std::int64_t>();
  double seconds = top.at("other").at("io_seconds").get<double>();
  for (std::size_t i = 0; i < files.size(); ++i) {
    ops += files[i].at("ops").get<std::int64_t>();
    seconds += files[i].at("io_seconds").get<double>();
    if (i > 0) {
      EXPECT_LE(files[i].at("io_seconds"), files[i - 1].at("io_seconds"));
    }
  }
  EXPECT_EQ(ops, 1315);
  EXPECT_NEAR(seconds, 16.005156, 1e-9);

  const CommandRun text = analyze({file});
  ASSERT_EQ(text.code, 0) << text.err;
  const auto at = text.out.find("top files by I/O time (whole run)");
  ASSERT_NE(at, std::string::npos) << text.out;
  EXPECT_NE(text.out.find("img_003_of_168.hdf5", at), std::string::npos);
  EXPECT_NE(text.out.find("0.868462", at), std::string::npos);
  EXPECT_NE(text.out.find("other files", at), std::string::npos);
}

// A Kineto trace has no file calls: no section, a null in the JSON.
TEST(AnalyzeCommand, ATraceWithoutFileCallsHasNoTopFiles) {
  const CommandRun r =
      analyze({testing::test_data("kineto/two-rank/sampled_rank-1.json.gz"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_TRUE(doc.at("stallwatch").at("jobs").at(0).at("ranks").at(0).at("top_files").is_null());
  const CommandRun text = analyze({testing::test_data("kineto/two-rank/sampled_rank-1.json.gz")});
  EXPECT_EQ(text.out.find("top files by I/O time"), std::string::npos);
}

TEST(AnalyzeCommand, ReadingRanksInParallelChangesNothing) {
  std::vector<std::string> words = dlio_files();
  words.push_back(testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"));
  words.push_back(testing::test_data("kineto/two-rank/sampled_rank-1.json.gz"));
  words.insert(words.end(), {"--json", "--mapping", "dlio", "--granularity", "1s"});
  std::vector<std::string> one = words, many = words;
  one.insert(one.end(), {"--threads", "1"});
  many.insert(many.end(), {"--threads", "4"});
  const CommandRun a = analyze(one), b = analyze(many);
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);  // DFAnalyzer, HTA and the engine's view, byte for byte
  EXPECT_EQ(a.err, b.err);
  const auto doc = nlohmann::json::parse(b.out);
  EXPECT_EQ(doc.at("reads").size(), 10u);
  EXPECT_EQ(doc.at("stallwatch").at("jobs").size(), 2u);  // dftracer and kineto
}

TEST(AnalyzeCommand, AnUnreadableFileFailsAParallelRunToo) {
  std::vector<std::string> words = dlio_files();
  words.push_back("/nonexistent/trace-8-of-9.pfw");
  words.insert(words.end(), {"--threads", "3"});
  const CommandRun r = analyze(words);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("/nonexistent/trace-8-of-9.pfw"), std::string::npos) << r.err;
  EXPECT_EQ(analyze({dlio_files()[0], "--threads", "0"}).code, 2);
}

TEST(AnalyzeCommand, TextShowsHtasBreakdownForKineto) {
  const CommandRun r = analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
                                testing::test_data("kineto/two-rank/sampled_rank-1.json.gz")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("HTA temporal breakdown"), std::string::npos);
  EXPECT_NE(r.out.find("321378"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("11.81"), std::string::npos);
  EXPECT_NE(r.out.find("20.05"), std::string::npos);
  EXPECT_NE(r.out.find("cupti"), std::string::npos);
  EXPECT_NE(r.out.find("COMPUTATION overlapping COMMUNICATION"), std::string::npos);
  EXPECT_NE(r.out.find("CUDA kernel launches"), std::string::npos);
  EXPECT_NE(r.out.find("queue length by stream"), std::string::npos);
}

TEST(AnalyzeCommand, JsonCarriesHtasKernelLaunchAndQueueTables) {
  const CommandRun r = analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
                                testing::test_data("kineto/two-rank/sampled_rank-1.json.gz"),
                                "--json", "--no-engine"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto hta = nlohmann::json::parse(r.out).at("hta");
  const auto& types = hta.at("kernel_breakdown").at("kernel_types");
  ASSERT_EQ(types.size(), 7u);
  EXPECT_EQ(types[0].at("kernel_type").get<std::string>(), "COMMUNICATION");
  EXPECT_EQ(types[0].at("sum_us").get<std::int64_t>(), 305584);
  EXPECT_DOUBLE_EQ(types[0].at("percentage").get<double>(), 55.5);
  const auto& launches = hta.at("cuda_kernel_launch_stats");
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].at("launches").get<int>(), 602);
  EXPECT_DOUBLE_EQ(launches[0].at("cpu_duration_us").at("max").get<double>(), 31);
  const auto& queues = hta.at("queue_length");
  ASSERT_EQ(queues.size(), 10u);
  EXPECT_EQ(queues[0].at("stream").get<int>(), 7);
  EXPECT_DOUBLE_EQ(queues[0].at("queue_length").at("max").get<double>(), 76);
}

// The engine's live launch figures (docs/api.md, "Kernel launches"), fed the
// trace's launch calls and kernels as the CUPTI source sends them: every
// launch of the file joined to its kernel (1204 cudaLaunchKernel,
// cudaMemcpyAsync and cudaMemsetAsync rows on rank 0, 1154 on rank 1, each
// with one device row of its correlation id). HTA's own statistics count
// only the launches its trace filtering keeps (602 and 577).
TEST(AnalyzeCommand, TheEngineJoinsEveryLaunchOfAKinetoTraceToItsKernel) {
  const CommandRun r =
      analyze({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
               testing::test_data("kineto/two-rank/sampled_rank-1.json.gz"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  const auto& stats = report.at("hta").at("cuda_kernel_launch_stats");
  const auto& jobs = report.at("stallwatch").at("jobs");
  ASSERT_EQ(jobs.size(), 1u);
  const auto& ranks = jobs[0].at("ranks");
  ASSERT_EQ(ranks.size(), 2u);
  const std::uint64_t in_file[] = {1204, 1154};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& live = ranks[i].at("windows").back();
    SCOPED_TRACE("rank " + std::to_string(ranks[i].at("rank").get<int>()));
    EXPECT_EQ(live.at("launches").get<std::uint64_t>(), in_file[i]);
    EXPECT_GE(live.at("launches").get<std::uint64_t>(),
              stats[i].at("launches").get<std::uint64_t>());
    EXPECT_TRUE(live.at("launches_captured").get<bool>());
    EXPECT_GT(live.at("launch_seconds").get<double>(), 0);
  }
}

TEST(AnalyzeCommand, MalformedRecordsAreReportedButDoNotFailTheRun) {
  TempDir dir;
  const std::string path = dir.write("trace-0-of-1.pfw",
                                     "[\n{\"name\":\"mm\",\"cat\":\"compute\",\"pid\":1,\"tid\":1,"
                                     "\"ts\":10,\"dur\":5,\"ph\":\"X\"}\n{oops\n]\n");
  const CommandRun r = analyze({path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(path + ":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 malformed"), std::string::npos) << r.out;
}

// pydftracer's AI logging of `for epoch in ai.pipeline.epoch.iter(...)` around
// `for batch in ai.dataloader.fetch.iter(...)`: per epoch an epoch.iter wait
// and an epoch.block body, per batch a fetch.iter wait and a fetch.block body
// (no event for a loop's ending wait, no step marks). Each fetch.iter on the
// training thread is one batch trained: the steps are exactly the batches.
TEST(AnalyzeCommand, APydftracerAiTraceCountsOneStepPerBatchTrained) {
  constexpr int kEpochs = 3, kBatches = 4;
  constexpr std::int64_t kPid = 700;
  struct Row {
    const char* cat;
    const char* name;
    std::int64_t start, end;
  };
  std::vector<Row> rows;
  std::int64_t t = 1'700'000'000'000'000;  // microseconds
  for (int e = 0; e < kEpochs; ++e) {
    rows.push_back({"pipeline", "epoch.iter", t, t + 50});
    const std::int64_t epoch_start = t += 50;
    for (int b = 0; b < kBatches; ++b) {
      rows.push_back({"dataloader", "fetch.iter", t, t + 2'000});
      t += 2'000;
      rows.push_back({"compute", "compute", t + 100, t + 4'100});
      rows.push_back({"dataloader", "fetch.block", t, t + 5'000});
      t += 5'000;
    }
    rows.push_back({"pipeline", "epoch.block", epoch_start, t});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.end < b.end; });
  std::ostringstream out;
  out << "[\n";
  int id = 0;
  for (const Row& r : rows) {
    out << R"({"id":)" << id++ << R"(,"name":")" << r.name << R"(","cat":")" << r.cat
        << R"(","pid":)" << kPid << R"(,"tid":)" << kPid << R"(,"ts":)" << r.start << R"(,"dur":)"
        << (r.end - r.start) << R"(,"ph":"X"})"
        << "\n";
  }
  out << "]\n";
  TempDir dir;
  const CommandRun r = analyze({dir.write("trace-0-of-1.pfw", out.str()), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& rank = doc.at("stallwatch").at("jobs").at(0).at("ranks").at(0);
  bool whole_run = false;
  for (const auto& w : rank.at("windows")) {
    if (w.at("window_seconds").get<double>() != 0) continue;
    whole_run = true;
    EXPECT_EQ(w.at("steps").get<int>(), kEpochs * kBatches) << w.dump();
  }
  EXPECT_TRUE(whole_run) << rank.dump();
  EXPECT_EQ(doc.at("dfanalyzer").at("ops").at("fetch").get<int>(), kEpochs * kBatches);
}

}  // namespace
}  // namespace stallwatch::collector
