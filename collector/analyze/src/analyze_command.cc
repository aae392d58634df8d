// SPDX-License-Identifier: MIT
#include "analyze/analyze_command.h"

#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_report.h"
#include "config/class_presets.h"
#include "config/class_rules_toml.h"
#include "config/duration_option.h"
#include "dfanalyzer_summary.h"
#include "engine_view.h"
#include "execution_trace.h"
#include "heap_pages.h"
#include "hta_breakdown.h"
#include "rank_scheduler.h"
#include "traces/rank_workers.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {

namespace {

constexpr const char* kFooter =
    "Ranks: a dftracer file's rank comes from its name (trace-3-of-8.pfw, rank3); a\n"
    "file without one (a data-loader worker) joins its parent process's rank: the\n"
    "file whose pid its `start` record's ppid names, or, with no `start` record,\n"
    "the file that has one for the pid it was written under (a forked worker keeps\n"
    "its parent's pid). Other files are ranks of their own, in path order.\n"
    "Device busy: GPU kernels, copies and memsets (DFTracer's CUDA_KERNEL,\n"
    "CUDA_MEMCPY, CUDA_MEMSET, ..., or the `gpu` category); a rank with none is\n"
    "judged on compute (device signal compute-proxy).";

struct AnalyzeOptions {
  std::vector<std::string> files;
  bool json = false;
  std::int64_t granularity_ns = 0;
  std::optional<std::string> mapping;
  std::optional<std::string> classes_file;
  std::int64_t horizon_ns = 60'000'000'000;
  bool engine = true;
  std::size_t threads = 0;  // 0: one per available CPU
  std::int64_t batch_size = 0;
  std::optional<std::string> html;
  std::vector<std::string> et;  // [RANK=]FILE each
  std::optional<std::int64_t> et_rank;
};

std::unique_ptr<CLI::App> analyze_app(AnalyzeOptions& o) {
  auto app = std::make_unique<CLI::App>(
      "DFAnalyzer summary of dftracer traces and HTA breakdowns of PyTorch-profiler traces, "
      "with stallwatch's own exact view.",
      "stallwatch analyze");
  app->add_option("FILE", o.files,
                  "dftracer .pfw/.pfw.gz or PyTorch-profiler (Kineto) .json/.json.gz")
      ->required();
  app->add_flag("--json", o.json, "one JSON document instead of tables");
  add_duration_option(*app, "--granularity", o.granularity_ns,
                      "also print DFAnalyzer's per-time-bin approximation (e.g. 1s)");
  app->add_option("--mapping", o.mapping, "event-class preset (default: default)")
      ->type_name("NAME")
      ->check([](const std::string& v) -> std::string {
        return class_preset(v) ? "" : "unknown preset '" + v + "'";
      });
  app->add_option("--classes", o.classes_file, "[classes] rules tried before the preset's (TOML)")
      ->type_name("FILE");
  add_duration_option(
      *app, "--horizon", o.horizon_ns,
      "how far back an event may start behind later ones before a rank is re-read to "
      "stay exact (default 60s)");
  app->add_flag_callback(
      "--no-engine", [&o] { o.engine = false; },
      "skip stallwatch's own view (the DFAnalyzer/HTA parts only)");
  app->add_option("--threads", o.threads, "read up to N ranks at once (default: one per CPU)")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
  app->add_option("--batch-size", o.batch_size,
                  "samples each rank processes per step: adds QPS to the step table")
      ->type_name("N")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app->add_option("--html", o.html, "also write the report as one self-contained HTML page to FILE")
      ->type_name("FILE");
  app->add_option("--et", o.et,
                  "PyTorch Execution Trace (JSON, .gz) collected with the Kineto trace of rank "
                  "N: adds ET node ids and input shapes to the operator table; repeat for several "
                  "ranks. Without N=, the rank whose host operators ran in the ET's pid")
      ->type_name("[N=]FILE");
  app->add_option("--et-rank", o.et_rank,
                  "the Kineto rank of a single --et FILE (default: the rank with its pid, else "
                  "the first)")
      ->type_name("N");
  app->footer(kFooter);
  return app;
}

void report_problems(const std::vector<ReadStats>& reads, std::ostream& err) {
  for (const ReadStats& s : reads) {
    for (const ReadProblem& p : s.problems)
      err << "warning: malformed record: " << to_string(p) << "\n";
    if (s.malformed > s.problems.size()) {
      err << "warning: " << s.file << ": " << (s.malformed - s.problems.size())
          << " more malformed records not shown (" << s.malformed << " in all)\n";
    }
  }
}

}  // namespace

int run_analyze(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  AnalyzeOptions options;
  const auto app = analyze_app(options);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app->help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "stallwatch analyze: " << e.what()
        << "\nRun `stallwatch analyze --help` for the options.\n";
    return 2;
  }
  // The ranks of a run are read in worker threads, and glibc gives each
  // thread a malloc arena of its own, whose partly used pages all stay
  // resident: one arena takes the two-rank Kineto pair from 8.35 to 7.45 MB
  // of peak RSS, at the same speed (the readers allocate once per few
  // hundred bytes of rows). Set before the first worker starts.
  ::mallopt(M_ARENA_MAX, 1);
  // Memory freed is kept for the next use instead of going back to the
  // kernel: each file is opened more than once (its format probe and its
  // reader, when planned and again when read), and each time its 256 KiB
  // buffers would be mapped afresh, as would the rows' pages once the tables
  // are built from them. A fresh page costs a page fault; peak RSS is
  // unchanged (what is kept was resident already).
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 64 << 20);

  ClassRulesConfig rules;
  std::string mapping_label = "default";
  if (options.classes_file) {
    std::ifstream in(*options.classes_file, std::ios::binary);
    if (!in) {
      err << "stallwatch analyze: cannot read " << *options.classes_file << "\n";
      return 1;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (auto problem = parse_class_rules_toml(text, *options.classes_file, rules);
        !problem.empty()) {
      err << "stallwatch analyze: " << problem << "\n";
      return 2;
    }
  }
  if (options.mapping) rules.preset = *options.mapping;
  mapping_label = rules.preset;
  if (options.classes_file) {
    mapping_label +=
        " + " + std::to_string(rules.rules.size()) + " rule(s) from " + *options.classes_file;
  }
  ClassMapping mapping;
  if (auto problem = build_class_mapping(rules, mapping); !problem.empty()) {
    err << "stallwatch analyze: " << problem << "\n";
    return 2;
  }

  TracePlan plan;
  if (auto problem = plan_traces(options.files, plan); !problem.empty()) {
    err << "stallwatch analyze: " << problem << "\n";
    return 1;
  }

  // A Kineto rank keeps a row per event (about 64 bytes per 220 of text).
  // From 8 MiB of text on, the rows fill huge pages well enough that their
  // partly used last one costs little RSS, and they save a page fault per
  // 4 KiB: on the ResNet trace (15 MB) 1 520 faults became 270, the run took
  // 49 ms instead of 67 on a VM (a fault costs µs there) and peak RSS grew
  // from 11.3 to 12.3 MB. Smaller traces keep 4 KiB pages and their RSS.
  constexpr std::uint64_t kHugePagesFrom = std::uint64_t{8} << 20;
  std::optional<HugePageHeap> huge_pages;
  if (const std::uint64_t text = kineto_text_bytes(plan); text >= kHugePagesFrom)
    huge_pages.emplace(std::max<std::uint64_t>(text / 2, std::uint64_t{16} << 20));

  for (const std::string& note : plan.notes)
    err << "note: " << note << "\n";
  AnalyzeReport report;
  report.files = options.files;
  report.mapping = mapping_label;
  report.batch_size = options.batch_size;
  std::optional<EngineView> view;
  if (options.engine) {
    view.emplace(mapping, options.horizon_ns);
    if (!view->error().empty()) {
      err << "stallwatch analyze: engine: " << view->error() << "\n";
      return 2;
    }
  }

  DfAnalysisOptions df_options;
  df_options.granularity_ns = options.granularity_ns;
  df_options.horizon_ns = options.horizon_ns;
  const std::size_t threads = options.threads > 0 ? options.threads : available_cpus();
  std::vector<RankAnalysis> ranks;
  if (auto problem =
          analyze_ranks(plan, mapping, df_options, view ? &*view : nullptr, threads, ranks);
      !problem.empty()) {
    err << "stallwatch analyze: " << problem << "\n";
    return 1;
  }
  bool any_dftracer = false;
  std::vector<DfRankResult> df_ranks;
  std::vector<HtaTraceCollector> hta_ranks;
  for (RankAnalysis& rank : ranks) {
    for (ReadStats& s : rank.stats)
      report.reads.push_back(std::move(s));
    if (rank.dftracer) {
      any_dftracer = true;
      df_ranks.push_back(std::move(*rank.dftracer));
    }
    if (rank.hta) hta_ranks.push_back(std::move(*rank.hta));
  }
  if (any_dftracer) {
    const RebinRanks rebin = [&](std::int64_t origin_ns, BinnedTimes& bins) {
      return bin_ranks(plan, mapping, threads, origin_ns, options.granularity_ns, bins);
    };
    DfJobSummary summary;
    if (auto problem = finish_dftracer(plan, df_options, df_ranks, rebin, summary);
        !problem.empty()) {
      err << "stallwatch analyze: " << problem << "\n";
      return 1;
    }
    report.dftracer = std::move(summary);
  }
  if (!hta_ranks.empty()) report.hta = hta_breakdown(hta_ranks);
  if (!options.et.empty()) {
    if (!report.hta || report.hta->ranks.empty()) {
      err << "stallwatch analyze: --et needs a Kineto trace to join\n";
      return 2;
    }
    if (options.et_rank && options.et.size() > 1) {
      err << "stallwatch analyze: --et-rank goes with a single --et; write --et N=FILE\n";
      return 2;
    }
    std::vector<ExecutionTrace> traces(options.et.size());
    std::vector<std::optional<std::int64_t>> given_ranks;
    for (std::size_t i = 0; i < options.et.size(); ++i) {
      const EtArgument arg = parse_et_argument(options.et[i]);
      if (auto problem = read_execution_trace(arg.file, traces[i]); !problem.empty()) {
        err << "stallwatch analyze: " << problem << "\n";
        return 1;
      }
      given_ranks.push_back(arg.rank ? arg.rank : options.et_rank);
    }
    std::string problem;
    const std::vector<std::int64_t> resolved = et_ranks(traces, given_ranks, *report.hta, problem);
    if (!problem.empty()) {
      err << "stallwatch analyze: " << problem << "\n";
      return 2;
    }
    for (std::size_t i = 0; i < traces.size(); ++i) {
      const EtJoin& join =
          report.et.emplace_back(join_execution_trace(traces[i], resolved[i], *report.hta));
      if (!join.overlap) {
        err << "warning: " << join.file << " and the Kineto trace of rank " << join.rank
            << " were not collected together (ET record-function ids " << join.et_min_rf_id << ".."
            << join.et_max_rf_id << ", Kineto External ids " << join.kineto_min_id << ".."
            << join.kineto_max_id << "): nothing joined\n";
      }
    }
  }
  if (view) report.engine = view->finish();

  report_problems(report.reads, err);
  if (options.html) {
    std::ofstream page(*options.html, std::ios::binary | std::ios::trunc);
    if (page) write_report_html(report, page);
    if (!page) {
      err << "stallwatch analyze: cannot write " << *options.html << "\n";
      return 1;
    }
  }
  if (options.json) {
    write_report_json(report, out);
  } else {
    write_report_text(report, out);
  }
  return 0;
}

}  // namespace stallwatch::collector
