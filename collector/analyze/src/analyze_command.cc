// SPDX-License-Identifier: MIT
#include "analyze/analyze_command.h"

#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_report.h"
#include "config/class_presets.h"
#include "config/class_rules_toml.h"
#include "config/duration.h"
#include "dfanalyzer_summary.h"
#include "engine_view.h"
#include "hta_breakdown.h"
#include "rank_scheduler.h"
#include "traces/json_value.h"
#include "traces/rank_workers.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {

namespace {

constexpr const char* kUsage =
    "usage: stallwatch analyze FILE... [--json] [--granularity DURATION]\n"
    "                          [--mapping default|dlio] [--classes FILE.toml] [--horizon "
    "DURATION]\n"
    "                          [--no-engine] [--threads N]\n"
    "\n"
    "  FILE              dftracer .pfw/.pfw.gz or PyTorch-profiler (Kineto) .json/.json.gz\n"
    "  --json            one JSON document instead of tables\n"
    "  --granularity D   also print DFAnalyzer's per-time-bin approximation (e.g. 1s)\n"
    "  --mapping NAME    event-class preset (default: default)\n"
    "  --classes FILE    [classes] rules tried before the preset's (TOML)\n"
    "  --horizon D       how far back an event may start behind later ones before\n"
    "                    a rank is re-read to stay exact (default 60s)\n"
    "  --no-engine       skip stallwatch's own view (the DFAnalyzer/HTA parts only)\n"
    "  --threads N       read up to N ranks at once (default: one per available CPU)\n"
    "\n"
    "Ranks: a dftracer file's rank comes from its name (trace-3-of-8.pfw, rank3); a\n"
    "file without one (a data-loader worker) joins its parent process's rank: the\n"
    "file whose pid its `start` record's ppid names, or, with no `start` record,\n"
    "the file that has one for the pid it was written under (a forked worker keeps\n"
    "its parent's pid). Other files are ranks of their own, in path order.\n"
    "Device busy: GPU kernels, copies and memsets (DFTracer's CUDA_KERNEL,\n"
    "CUDA_MEMCPY, CUDA_MEMSET, ..., or the `gpu` category); a rank with none is\n"
    "judged on compute (device signal compute-proxy).\n";

struct AnalyzeOptions {
  std::vector<std::string> files;
  bool json = false;
  std::int64_t granularity_ns = 0;
  std::optional<std::string> mapping;
  std::optional<std::string> classes_file;
  std::int64_t horizon_ns = 60'000'000'000;
  bool engine = true;
  std::size_t threads = 0;  // 0: one per available CPU
};

// "" on success, else the usage problem.
std::string parse_args(std::span<const std::string_view> args, AnalyzeOptions& o, bool& help) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::optional<std::string_view> inline_value;
    if (arg.size() > 2 && arg.substr(0, 2) == "--") {
      if (const auto eq = arg.find('='); eq != std::string_view::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
    }
    auto value = [&](std::string_view& v) -> bool {
      if (inline_value) {
        v = *inline_value;
        return true;
      }
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    std::string_view v;
    if (arg == "-h" || arg == "--help") {
      help = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--no-engine") {
      o.engine = false;
    } else if (arg == "--granularity" || arg == "--horizon") {
      if (!value(v)) return std::string(arg) + " needs a duration";
      const auto ns = parse_duration(v);
      if (!ns) return std::string(arg) + ": " + duration_problem(v);
      if (*ns <= 0) return std::string(arg) + ": must be more than 0";
      (arg == "--granularity" ? o.granularity_ns : o.horizon_ns) = *ns;
    } else if (arg == "--threads") {
      if (!value(v)) return "--threads needs a count";
      std::int64_t n = 0;
      if (!detail::parse_int(v, n) || n < 1 || n > 1024) {
        return "--threads: '" + std::string(v) + "' is not a count from 1 to 1024";
      }
      o.threads = static_cast<std::size_t>(n);
    } else if (arg == "--mapping") {
      if (!value(v)) return "--mapping needs a preset name";
      if (!class_preset(v)) return "--mapping: unknown preset '" + std::string(v) + "'";
      o.mapping = std::string(v);
    } else if (arg == "--classes") {
      if (!value(v)) return "--classes needs a TOML file";
      o.classes_file = std::string(v);
    } else if (arg.size() > 1 && arg[0] == '-') {
      return "unknown option " + std::string(arg);
    } else {
      o.files.emplace_back(arg);
    }
  }
  if (!help && o.files.empty()) return "no trace files given";
  return {};
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
  bool help = false;
  if (auto problem = parse_args(args, options, help); !problem.empty()) {
    err << "stallwatch analyze: " << problem << "\n" << kUsage;
    return 2;
  }
  if (help) {
    out << kUsage;
    return 0;
  }

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

  for (const std::string& note : plan.notes)
    err << "note: " << note << "\n";
  AnalyzeReport report;
  report.files = options.files;
  report.mapping = mapping_label;
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
  if (view) report.engine = view->finish();

  report_problems(report.reads, err);
  if (options.json) {
    write_report_json(report, out);
  } else {
    write_report_text(report, out);
  }
  return 0;
}

}  // namespace stallwatch::collector
