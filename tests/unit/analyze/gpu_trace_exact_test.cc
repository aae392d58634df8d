// SPDX-License-Identifier: MIT
// `stallwatch analyze` on generated dftracer traces whose ranks carry GPU
// events next to their fetch and compute regions: the DFAnalyzer summary and
// the live engine's view must give the exact data stall |FETCH \ DEVICE_BUSY|
// against the kernels, as computed here with plain interval arithmetic from
// the events the generator wrote (none of the analysis' or engine's code).
//
// The traces have random overlaps: fetches overlapping kernels, kernels on
// several streams and threads, nested compute regions, host waits for the
// device that are not device work, and data-loader worker processes in files
// of their own. They are written with stallwatch's `gpu` category and with
// DFTracer's own CUPTI categories (CUDA_KERNEL, CUDA_MEMCPY, ...).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyze_command.h"
#include "trace_files.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

// Half-open [start, end) in µs, the trace's unit.
struct Span {
  std::int64_t start;
  std::int64_t end;
};

std::vector<Span> merged(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<Span> out;
  for (const Span& s : spans) {
    if (s.end <= s.start) continue;
    if (!out.empty() && s.start <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

std::int64_t length(const std::vector<Span>& spans) {
  std::int64_t total = 0;
  for (const Span& s : merged(spans))
    total += s.end - s.start;
  return total;
}

// |a \ b|: each piece of a's union minus what b's union covers of it.
std::int64_t length_outside(const std::vector<Span>& a, const std::vector<Span>& b) {
  const std::vector<Span> ua = merged(a), ub = merged(b);
  std::int64_t total = 0;
  for (const Span& x : ua) {
    std::int64_t covered = 0;
    for (const Span& y : ub)
      covered += std::max<std::int64_t>(0, std::min(x.end, y.end) - std::max(x.start, y.start));
    total += (x.end - x.start) - covered;
  }
  return total;
}

// Which event categories a generated trace uses for device work.
enum class GpuCategories { kStallwatch, kDftracerCupti };

struct Record {
  std::string cat;
  std::string name;
  std::int64_t pid;
  std::int64_t tid;
  Span span;
};

// What the generator wrote for one rank, by event class.
struct Expected {
  std::vector<Span> fetch, device, compute, app_io, io;
  int batches = 0;  // fetches that brought a batch: the steps trained
};

class TraceGenerator {
 public:
  TraceGenerator(std::uint32_t seed, GpuCategories cats) : rng_(seed), cats_(cats) {}

  // Writes one rank: the training process's file and `workers` worker files
  // (each names the training process as its parent).
  void rank(const TempDir& dir, int rank, int ranks, int workers, int steps,
            std::vector<std::string>& files, Expected& expected) {
    const std::int64_t pid = 4000 + 100 * rank;
    std::vector<Record> main;
    std::vector<std::vector<Record>> worker(static_cast<std::size_t>(workers));
    std::int64_t t = 1'700'000'000'000'000 + 1000 * rank + pick(0, 500);
    for (int s = 0; s < steps; ++s) {
      // The loop waits for the batch; the workers read it meanwhile.
      const Span fetch{t, t + pick(500, 40'000)};
      main.push_back({"dataloader", "fetch.iter", pid, pid, fetch});
      expected.fetch.push_back(fetch);
      ++expected.batches;
      expected.app_io.push_back(fetch);
      for (int w = 0; w < workers; ++w) {
        const std::int64_t wpid = pid + 1 + w;
        const Span item{fetch.start - pick(0, 20'000), fetch.end - pick(0, 400)};
        worker[static_cast<std::size_t>(w)].push_back({"data", "item", wpid, wpid, item});
        expected.app_io.push_back(item);
        const Span read{item.start + pick(0, 100), item.start + pick(150, 300)};
        worker[static_cast<std::size_t>(w)].push_back({"POSIX", "read", wpid, wpid, read});
        expected.io.push_back(read);
      }
      // The step body: nested compute regions, with kernels launched from it
      // that run on two streams, some of them past the next fetch's start.
      const std::int64_t body = fetch.end + pick(0, 200);
      const Span step{body, body + pick(5'000, 30'000)};
      const Span forward{step.start + pick(0, 100), step.start + (step.end - step.start) / 2};
      main.push_back({"compute", "step", pid, pid, step});
      main.push_back({"compute", "forward", pid, pid, forward});
      expected.compute.push_back(step);
      expected.compute.push_back(forward);
      const int kernels = static_cast<int>(pick(1, 6));
      for (int k = 0; k < kernels; ++k) {
        const std::int64_t stream = k % 2 == 0 ? 7 : 13;
        const std::int64_t start = step.start + pick(0, step.end - step.start);
        const Span kernel{start, start + pick(100, 25'000)};
        main.push_back({device_cat("CUDA_KERNEL"), "volta_sgemm_128x64_nn", pid,
                        device_tid(pid, stream), kernel});
        expected.device.push_back(kernel);
      }
      const Span copy{fetch.end + pick(0, 50), fetch.end + pick(60, 900)};
      main.push_back({device_cat("CUDA_MEMCPY"), "HtoD", pid, device_tid(pid, 21), copy});
      expected.device.push_back(copy);
      if (s % 3 == 0) {
        const Span memset{copy.end, copy.end + pick(1, 80)};
        main.push_back({device_cat("CUDA_MEMSET"), "memset", pid, device_tid(pid, 21), memset});
        expected.device.push_back(memset);
      }
      if (cats_ == GpuCategories::kDftracerCupti) {
        // The host waiting for the device and launching work: neither is
        // device work, and the waits overlap fetches on purpose.
        const Span sync{step.end - pick(0, 1000), step.end + pick(0, 3000)};
        main.push_back({"CUDA_SYNC", "cudaStreamSynchronize", pid, pid, sync});
        const Span launch{step.start, step.start + pick(5, 40)};
        main.push_back({"CUDA_RUNTIME_API", "cudaLaunchKernel", pid, pid, launch});
        const Span device_sync{fetch.start, fetch.start + pick(10, 400)};
        main.push_back({"CUDA_RUNTIME_API", "cudaDeviceSynchronize", pid, pid, device_sync});
      }
      t = step.end + pick(0, 300);
    }
    files.push_back(write(dir,
                          "trace-" + std::to_string(rank) + "-of-" + std::to_string(ranks) + ".pfw",
                          pid, 1, main));
    for (int w = 0; w < workers; ++w) {
      const std::int64_t wpid = pid + 1 + w;
      // No rank in these names: the workers join their parent's rank.
      files.push_back(write(dir, "dataloader-worker-" + std::to_string(wpid) + ".pfw", wpid, pid,
                            worker[static_cast<std::size_t>(w)]));
    }
  }

 private:
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  std::string device_cat(std::string_view cupti) const {
    return cats_ == GpuCategories::kStallwatch ? "gpu" : std::string(cupti);
  }
  std::int64_t device_tid(std::int64_t pid, std::int64_t stream) const {
    // stallwatch's lanes are one per stream; DFTracer writes CUPTI records
    // from its buffer-completion thread.
    return cats_ == GpuCategories::kStallwatch ? stream : pid + 50;
  }

  // A dftracer file as dftracer writes it: the process's start record, then
  // the events in the order they end.
  static std::string write(const TempDir& dir, const std::string& name, std::int64_t pid,
                           std::int64_t ppid, std::vector<Record> records) {
    std::stable_sort(records.begin(), records.end(),
                     [](const Record& a, const Record& b) { return a.span.end < b.span.end; });
    const std::int64_t first = records.empty() ? 0 : records.front().span.start;
    std::ostringstream out;
    out << "[\n";
    out << R"({"id":0,"name":"start","cat":"dftracer","pid":)" << pid << R"(,"tid":)" << pid
        << R"(,"ts":)" << first << R"(,"dur":0,"ph":"X","args":{"ppid":)" << ppid << "}}\n";
    int id = 1;
    for (const Record& r : records) {
      out << R"({"id":)" << id++ << R"(,"name":")" << r.name << R"(","cat":")" << r.cat
          << R"(","pid":)" << r.pid << R"(,"tid":)" << r.tid << R"(,"ts":)" << r.span.start
          << R"(,"dur":)" << (r.span.end - r.span.start) << R"(,"ph":"X"})"
          << "\n";
    }
    out << "]\n";
    return dir.write(name, out.str());
  }

  std::mt19937 rng_;
  GpuCategories cats_;
};

// The same kind of run as a PyTorch-profiler (Kineto) trace, one file per
// rank: data-loader waits on the main thread, kernels and copies on three
// streams overlapping them, one ProfilerStep around the whole run (HTA keeps
// every row then). What HTA's temporal breakdown and the engine see.
struct KinetoExpected {
  std::vector<Span> fetch, kernels, copies;
};

std::string kineto_rank(const TempDir& dir, std::mt19937& rng, int rank, int steps,
                        KinetoExpected& expected) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const std::int64_t pid = 900 + rank;
  std::int64_t t = 1'000'000 + pick(0, 500);
  std::ostringstream rows;
  int correlation = 1;
  const auto row = [&](std::string_view cat, std::string_view name, std::int64_t row_pid,
                       std::int64_t tid, Span span, std::int64_t stream) {
    rows << R"(,{"ph":"X","cat":")" << cat << R"(","name":")" << name << R"(","pid":)" << row_pid
         << R"(,"tid":)" << tid << R"(,"ts":)" << span.start << R"(,"dur":)"
         << (span.end - span.start);
    if (stream >= 0) {
      rows << R"(,"args":{"stream":)" << stream << R"(,"correlation":)" << correlation++ << "}";
    }
    rows << "}\n";
  };
  const std::int64_t first = t;
  for (int s = 0; s < steps; ++s) {
    const Span fetch{t, t + pick(500, 30'000)};
    row("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", pid, pid,
        fetch, -1);
    expected.fetch.push_back(fetch);
    const Span body{fetch.end + pick(0, 100), fetch.end + pick(5'000, 25'000)};
    row("cpu_op", "aten::mm", pid, pid, body, -1);
    const int kernels = static_cast<int>(pick(1, 5));
    for (int k = 0; k < kernels; ++k) {
      const std::int64_t start = body.start + pick(0, body.end - body.start);
      const Span kernel{start, start + pick(50, 20'000)};
      row("kernel", "volta_sgemm_128x64_nn", 0, k % 2 == 0 ? 7 : 13, kernel, k % 2 == 0 ? 7 : 13);
      expected.kernels.push_back(kernel);
    }
    const Span copy{fetch.end + pick(0, 50), fetch.end + pick(60, 900)};
    row("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 21, copy, 21);
    expected.copies.push_back(copy);
    t = body.end + pick(0, 300);
  }
  std::ostringstream out;
  out << R"({"distributedInfo":{"rank":)" << rank << R"(,"world_size":2},"traceEvents":[)";
  out << R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":)" << pid
      << R"(,"tid":)" << pid << R"(,"ts":)" << first << R"(,"dur":)" << (t + 50'000 - first)
      << "}\n";
  out << rows.str() << "]}\n";
  return dir.write("rank-" + std::to_string(rank) + ".pt.trace.json", out.str());
}

nlohmann::json analyze_json(std::vector<std::string> words) {
  words.insert(words.end(), {"--json", "--threads", "2"});
  std::vector<std::string_view> args(words.begin(), words.end());
  std::ostringstream out, err;
  EXPECT_EQ(run_analyze(args, out, err), 0) << err.str();
  return nlohmann::json::parse(out.str());
}

double seconds(std::int64_t us) {
  return static_cast<double>(us) / 1e6;
}

const nlohmann::json& whole_run(const nlohmann::json& rank) {
  for (const auto& w : rank.at("windows")) {
    if (w.at("window_seconds").get<double>() == 0) return w;
  }
  ADD_FAILURE() << "no whole-run window";
  return rank;
}

struct Generated {
  std::vector<std::string> files;
  std::vector<Expected> ranks;
};

Generated generate(const TempDir& dir, std::uint32_t seed, GpuCategories cats) {
  constexpr int kRanks = 3;
  Generated g;
  TraceGenerator gen(seed, cats);
  g.ranks.resize(kRanks);
  for (int r = 0; r < kRanks; ++r)
    gen.rank(dir, r, kRanks, 2, 60, g.files, g.ranks[static_cast<std::size_t>(r)]);
  return g;
}

void expect_exact(const nlohmann::json& doc, const Generated& g) {
  const auto& df = doc.at("dfanalyzer").at("ranks");
  const auto& engine = doc.at("stallwatch").at("jobs").at(0).at("ranks");
  // Workers never show up as ranks of their own.
  ASSERT_EQ(df.size(), g.ranks.size());
  ASSERT_EQ(engine.size(), g.ranks.size());
  constexpr double kTol = 1e-9;
  for (std::size_t r = 0; r < g.ranks.size(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const Expected& e = g.ranks[r];
    const double stall = seconds(length_outside(e.fetch, e.device));
    const double device = seconds(length(e.device));
    // The stall against the kernels is well apart from the one against compute.
    ASSERT_GT(std::abs(stall - seconds(length_outside(e.fetch, e.compute))), 0.05);

    const auto& d = df.at(r);
    EXPECT_EQ(d.at("rank").get<int>(), static_cast<int>(r));
    EXPECT_NEAR(d.at("fetch_not_device_seconds").get<double>(), stall, kTol);
    EXPECT_NEAR(d.at("device_busy_seconds").get<double>(), device, kTol);
    EXPECT_NEAR(d.at("fetch_seconds").get<double>(), seconds(length(e.fetch)), kTol);
    EXPECT_NEAR(d.at("compute_seconds").get<double>(), seconds(length(e.compute)), kTol);
    EXPECT_NEAR(d.at("app_io_seconds").get<double>(), seconds(length(e.app_io)), kTol);
    EXPECT_NEAR(d.at("io_seconds").get<double>(), seconds(length(e.io)), kTol);

    const auto& v = engine.at(r);
    EXPECT_EQ(v.at("rank").get<int>(), static_cast<int>(r));
    EXPECT_EQ(v.at("device_source").get<std::string>(), "trace");
    const auto& w = whole_run(v);
    // The comparison, for the record (seconds).
    std::printf(
        "  rank %zu: exact |FETCH \\ DEVICE_BUSY| %.6f | DFAnalyzer fetch_not_device %.6f | "
        "engine data_stall %.6f (%s) | |FETCH \\ COMPUTE| %.6f\n",
        r, stall, d.at("fetch_not_device_seconds").get<double>(),
        w.at("data_stall_seconds").get<double>(), v.at("device_source").get<std::string>().c_str(),
        seconds(length_outside(e.fetch, e.compute)));
    EXPECT_NEAR(w.at("data_stall_seconds").get<double>(), stall, kTol);
    EXPECT_NEAR(w.at("device_busy_seconds").get<double>(), device, kTol);
    EXPECT_NEAR(w.at("fetch_seconds").get<double>(), seconds(length(e.fetch)), kTol);
    EXPECT_NEAR(w.at("compute_seconds").get<double>(), seconds(length(e.compute)), kTol);
    EXPECT_NEAR(w.at("app_io_seconds").get<double>(), seconds(length(e.app_io)), kTol);
    EXPECT_NEAR(w.at("io_seconds").get<double>(), seconds(length(e.io)), kTol);
    // No step marks: each main-thread fetch that brought a batch is a step.
    EXPECT_EQ(w.at("steps").get<int>(), e.batches);
  }
}

TEST(GpuTraceExact, StallwatchGpuCategoryGivesTheExactStallAgainstKernels) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TempDir dir;
    const Generated g = generate(dir, seed, GpuCategories::kStallwatch);
    expect_exact(analyze_json(g.files), g);
  }
}

TEST(GpuTraceExact, DftracerCuptiCategoriesGiveTheExactStallAgainstKernels) {
  for (std::uint32_t seed : {4u, 5u, 6u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TempDir dir;
    const Generated g = generate(dir, seed, GpuCategories::kDftracerCupti);
    expect_exact(analyze_json(g.files), g);
  }
}

TEST(GpuTraceExact, AClassesRuleToDeviceBusyMakesTheRankJudgedOnIt) {
  TempDir dir;
  Generated g = generate(dir, 7, GpuCategories::kStallwatch);
  // The same events under a category no preset knows, mapped by the user.
  for (std::string& file : g.files) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t at = 0; (at = text.find(R"("cat":"gpu")", at)) != std::string::npos;)
      text.replace(at, 11, R"("cat":"acc")");
    std::ofstream(file, std::ios::trunc) << text;
  }
  const std::string rules = dir.write(
      "rules.toml", "[classes]\n[[classes.rule]]\ncat = \"acc\"\nclass = \"device_busy\"\n");
  std::vector<std::string> words = g.files;
  words.insert(words.end(), {"--classes", rules});
  expect_exact(analyze_json(words), g);

  // Without the rule the rank has no device events: compute stands in.
  const auto doc = analyze_json(g.files);
  for (const auto& rank : doc.at("stallwatch").at("jobs").at(0).at("ranks"))
    EXPECT_EQ(rank.at("device_source").get<std::string>(), "compute-proxy");
}

TEST(GpuTraceExact, HtaBreakdownAndTheEngineViewOfKinetoTracesAreExact) {
  for (std::uint32_t seed : {8u, 9u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TempDir dir;
    std::mt19937 rng(seed);
    std::vector<KinetoExpected> expected(2);
    std::vector<std::string> files;
    for (int r = 0; r < 2; ++r)
      files.push_back(kineto_rank(dir, rng, r, 50, expected[static_cast<std::size_t>(r)]));
    const auto doc = analyze_json(files);
    const auto& hta = doc.at("hta").at("ranks");
    const auto& engine = doc.at("stallwatch").at("jobs").at(0).at("ranks");
    ASSERT_EQ(hta.size(), 2u);
    ASSERT_EQ(engine.size(), 2u);
    for (std::size_t r = 0; r < 2; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r));
      const KinetoExpected& e = expected[r];
      std::vector<Span> gpu = e.kernels;
      gpu.insert(gpu.end(), e.copies.begin(), e.copies.end());
      std::int64_t first = gpu.front().start, last = gpu.front().end;
      for (const Span& g : gpu) {
        first = std::min(first, g.start);
        last = std::max(last, g.end);
      }
      const std::int64_t span = last - first;
      const std::int64_t idle = span - length(gpu);
      const std::int64_t compute = length(e.kernels);
      const auto& h = hta.at(r);
      const auto& w = whole_run(engine.at(r));
      std::printf(
          "  kineto rank %zu: exact idle %lld us, compute %lld us | HTA idle %.0f us, compute "
          "%.0f us | exact |FETCH \\ DEVICE_BUSY| %.6f s | engine data_stall %.6f s\n",
          r, static_cast<long long>(idle), static_cast<long long>(compute),
          h.at("idle_time_us").get<double>(), h.at("compute_time_us").get<double>(),
          seconds(length_outside(e.fetch, gpu)), w.at("data_stall_seconds").get<double>());
      EXPECT_NEAR(h.at("kernel_time_us").get<double>(), static_cast<double>(span), 1e-6);
      EXPECT_NEAR(h.at("idle_time_us").get<double>(), static_cast<double>(idle), 1e-6);
      EXPECT_NEAR(h.at("compute_time_us").get<double>(), static_cast<double>(compute), 1e-6);
      EXPECT_NEAR(h.at("non_compute_time_us").get<double>(),
                  static_cast<double>(span - compute - idle), 1e-6);

      EXPECT_EQ(engine.at(r).at("device_source").get<std::string>(), "cupti");
      EXPECT_NEAR(w.at("data_stall_seconds").get<double>(), seconds(length_outside(e.fetch, gpu)),
                  1e-9);
      EXPECT_NEAR(w.at("device_busy_seconds").get<double>(), seconds(length(gpu)), 1e-9);
      EXPECT_NEAR(w.at("fetch_seconds").get<double>(), seconds(length(e.fetch)), 1e-9);
    }
  }
}

}  // namespace
}  // namespace stallwatch::collector
