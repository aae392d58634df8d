// SPDX-License-Identifier: MIT
#include "daemon_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <toml.hpp>
#include <utility>

#include "alerts/alerts_config_toml.h"
#include "config/class_rules_toml.h"
#include "config/toml_fields.h"
#include "config/toml_text.h"
#include "ingest/endpoint_scope.h"
#include "ingest/ipc_endpoint.h"
#include "token_file.h"

namespace stallwatch::collector {
namespace {

std::string apply_ingest(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "ingest", {});
  if (auto err =
          s.allow_only({"endpoints", "curve_endpoints", "allow_list", "insecure_plaintext_remote"});
      !err.empty()) {
    return err;
  }
  if (s.has("endpoints")) {
    std::vector<std::string> endpoints;
    if (auto err = s.string_list("endpoints", endpoints); !err.empty()) return err;
    if (endpoints.empty()) return s.error("endpoints", "needs at least one endpoint");
    c.ingest_endpoints = std::move(endpoints);
  }
  if (s.has("curve_endpoints")) {
    if (auto err = s.string_list("curve_endpoints", c.curve_endpoints); !err.empty()) return err;
  }
  if (s.has("allow_list")) {
    std::string path;
    if (auto err = s.string("allow_list", path); !err.empty()) return err;
    c.allow_list_path = path;
  }
  if (s.has("insecure_plaintext_remote")) {
    if (auto err = s.boolean("insecure_plaintext_remote", c.insecure_plaintext_remote);
        !err.empty()) {
      return err;
    }
  }
  return {};
}

std::string apply_state(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "state", {});
  if (auto err = s.allow_only({"dir"}); !err.empty()) return err;
  if (s.has("dir")) {
    if (auto err = s.string("dir", c.state_dir); !err.empty()) return err;
    if (c.state_dir.empty()) return s.error("dir", "must not be empty");
  }
  return {};
}

std::string apply_http(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "http", {});
  if (auto err = s.allow_only({"listen", "token", "token_file", "max_connections",
                               "insecure_without_token", "tls_cert", "tls_key", "read_timeout",
                               "idle_timeout"});
      !err.empty()) {
    return err;
  }
  if (s.has("listen")) {
    std::string listen;
    if (auto err = s.string("listen", listen); !err.empty()) return err;
    if (!parse_host_port(listen, c.http_host, c.http_port)) {
      return s.error("listen", "expected HOST:PORT, got '" + listen + "'");
    }
  }
  if (s.has("token") && s.has("token_file")) {
    return s.error("token_file", "set either token or token_file, not both");
  }
  if (s.has("token")) {
    if (auto err = s.string("token", c.http_token); !err.empty()) return err;
  }
  if (s.has("token_file")) {
    std::string path;
    if (auto err = s.string("token_file", path); !err.empty()) return err;
    std::string why;
    if (!read_token_file(path, c.http_token, why)) {
      return s.error("token_file", "cannot read '" + path + "': " + why);
    }
    if (c.http_token.empty()) return s.error("token_file", "'" + path + "' is empty");
  }
  if (s.has("insecure_without_token")) {
    if (auto err = s.boolean("insecure_without_token", c.insecure_http_without_token);
        !err.empty()) {
      return err;
    }
  }
  if (s.has("max_connections")) {
    std::int64_t n = 0;
    if (auto err = s.integer("max_connections", n, 1, 100000); !err.empty()) return err;
    c.http_max_connections = static_cast<std::size_t>(n);
  }
  for (const auto& [key, target] : {std::pair{"read_timeout", &c.http_read_timeout_ns},
                                    std::pair{"idle_timeout", &c.http_idle_timeout_ns}}) {
    if (!s.has(key)) continue;
    if (auto err = s.duration(key, *target, false); !err.empty()) return err;
  }
  for (const auto& [key, path] :
       {std::pair{"tls_cert", &c.http_tls_cert}, std::pair{"tls_key", &c.http_tls_key}}) {
    if (!s.has(key)) continue;
    if (auto err = s.string(key, *path); !err.empty()) return err;
    if (path->empty()) return s.error(key, "must not be empty");
  }
  return {};
}

std::string apply_engine(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "engine", {});
  if (auto err = s.allow_only(
          {"windows", "verdict_window", "resolution", "lateness", "silent_after", "forget_after",
           "history", "timeline", "timeline_max_regions", "tick", "max_ranks", "step_mark",
           "batch_size_counter", "clock_window", "clock_warning", "top_files_per_cell",
           "top_files_total_files", "top_files_shown", "max_files_per_source"});
      !err.empty()) {
    return err;
  }
  EngineConfig& e = c.engine;
  if (s.has("windows")) {
    std::vector<std::string> names;
    if (auto err = s.string_list("windows", names); !err.empty()) return err;
    if (names.empty()) return s.error("windows", "needs at least one window");
    std::vector<std::int64_t> windows;
    for (const auto& n : names) {
      auto ns = parse_duration(n);
      if (!ns) return s.error("windows", duration_problem(n));
      if (*ns <= 0) return s.error("windows", "'" + n + "': a window must be longer than 0");
      windows.push_back(*ns);
    }
    e.windows_ns = std::move(windows);
    if (std::find(e.windows_ns.begin(), e.windows_ns.end(), e.verdict_window_ns) ==
        e.windows_ns.end()) {
      e.verdict_window_ns = e.windows_ns.size() > 1 ? e.windows_ns[1] : e.windows_ns[0];
    }
  }
  struct DurationKey {
    const char* key;
    std::int64_t* target;
  };
  for (auto [key, target] :
       {DurationKey{"verdict_window", &e.verdict_window_ns},
        DurationKey{"resolution", &e.resolution_ns}, DurationKey{"lateness", &e.lateness_ns},
        DurationKey{"silent_after", &e.silent_after_ns},
        DurationKey{"forget_after", &e.forget_after_ns}, DurationKey{"history", &e.history_ns},
        DurationKey{"timeline", &e.timeline_ns}, DurationKey{"tick", &c.tick_ns},
        DurationKey{"clock_window", &e.clock_window_ns},
        DurationKey{"clock_warning", &e.clock_warning_ns}}) {
    if (s.has(key)) {
      if (auto err = s.duration(key, *target, false); !err.empty()) return err;
    }
  }
  std::int64_t n = 0;
  if (s.has("timeline_max_regions")) {
    if (auto err = s.integer("timeline_max_regions", n, 1, 10'000'000); !err.empty()) return err;
    e.timeline_max_regions = static_cast<std::size_t>(n);
  }
  if (s.has("max_ranks")) {
    if (auto err = s.integer("max_ranks", n, 1, 1'000'000); !err.empty()) return err;
    e.max_ranks = static_cast<std::size_t>(n);
  }
  struct CountKey {
    const char* key;
    std::size_t* target;
    std::int64_t max;
  };
  for (auto [key, target, max] :
       {CountKey{"top_files_per_cell", &e.top_files_per_cell, 100'000},
        CountKey{"top_files_total_files", &e.top_files_total_files, 1'000'000},
        CountKey{"top_files_shown", &e.top_files_shown,
                 static_cast<std::int64_t>(kMaxTopFilesShown)},
        CountKey{"max_files_per_source", &e.max_files_per_source, 1'000'000}}) {
    if (!s.has(key)) continue;
    if (auto err = s.integer(key, n, 1, max); !err.empty()) return err;
    *target = static_cast<std::size_t>(n);
  }
  if (s.has("step_mark")) {
    if (auto err = s.string("step_mark", e.step_mark); !err.empty()) return err;
  }
  if (s.has("batch_size_counter")) {
    if (auto err = s.string("batch_size_counter", e.batch_size_counter); !err.empty()) return err;
  }
  return {};
}

std::string apply_verdict(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "verdict", {});
  if (auto err = s.allow_only({"idle_busy_ratio", "data_stall_ratio", "unoverlapped_io_ratio",
                               "device_idle_ratio", "peer_wait_ratio", "storage_io_ratio",
                               "launch_idle_ratio"});
      !err.empty()) {
    return err;
  }
  VerdictThresholds& v = c.engine.verdict;
  struct RatioKey {
    const char* key;
    double* target;
  };
  for (auto [key, target] : {RatioKey{"idle_busy_ratio", &v.idle_busy_ratio},
                             RatioKey{"data_stall_ratio", &v.data_stall_ratio},
                             RatioKey{"unoverlapped_io_ratio", &v.unoverlapped_io_ratio},
                             RatioKey{"device_idle_ratio", &v.device_idle_ratio},
                             RatioKey{"peer_wait_ratio", &v.peer_wait_ratio},
                             RatioKey{"storage_io_ratio", &v.storage_io_ratio},
                             RatioKey{"launch_idle_ratio", &v.launch_idle_ratio}}) {
    if (s.has(key)) {
      if (auto err = s.ratio(key, *target); !err.empty()) return err;
    }
  }
  return {};
}

// Who holds a job back (docs/api.md, "held_back").
std::string apply_straggler(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "straggler", {});
  if (auto err = s.allow_only({"blame_share", "cost_ratio"}); !err.empty()) return err;
  StragglerThresholds& v = c.engine.straggler;
  for (auto [key, target] : {std::pair<const char*, double*>{"blame_share", &v.blame_share},
                             std::pair<const char*, double*>{"cost_ratio", &v.cost_ratio}}) {
    if (s.has(key)) {
      if (auto err = s.ratio(key, *target); !err.empty()) return err;
    }
  }
  return {};
}

std::string apply_journal(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "journal", {});
  if (auto err = s.allow_only({"dir", "max_bytes", "max_age"}); !err.empty()) return err;
  if (s.has("dir")) {
    std::string dir;
    if (auto err = s.string("dir", dir); !err.empty()) return err;
    c.journal_dir = dir;
  }
  if (s.has("max_bytes")) {
    std::int64_t n = 0;
    if (auto err = s.integer("max_bytes", n, 1 << 20, std::int64_t{1} << 50); !err.empty()) {
      return err;
    }
    c.journal_max_bytes = static_cast<std::uint64_t>(n);
  }
  if (s.has("max_age")) {
    std::string text;
    if (auto err = s.string("max_age", text); !err.empty()) return err;
    const auto ns = parse_duration(text);
    if (!ns || *ns <= 0) return s.error("max_age", "'" + text + "' is not a duration like \"7d\"");
    c.journal_max_age_ns = *ns;
  }
  return {};
}

// A window name as the API spells it: a duration, or "total" (0).
std::optional<std::int64_t> parse_window(std::string_view name) {
  if (name == "total") return 0;
  const auto ns = parse_duration(name);
  if (!ns || *ns <= 0) return std::nullopt;
  return ns;
}

std::string window_list(const TomlFields& s, std::string_view key, std::vector<std::int64_t>& out) {
  std::vector<std::string> names;
  if (auto err = s.string_list(key, names); !err.empty()) return err;
  out.clear();
  for (const auto& n : names) {
    const auto ns = parse_window(n);
    if (!ns) return s.error(key, "'" + n + "' is not a window like \"60s\" or \"total\"");
    if (std::find(out.begin(), out.end(), *ns) == out.end()) out.push_back(*ns);
  }
  return {};
}

std::string apply_prometheus(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "prometheus", {});
  if (auto err = s.allow_only({"per_rank_windows", "step_window", "job_windows", "rank_activity",
                               "step_histogram", "step_histogram_buckets", "top_files"});
      !err.empty()) {
    return err;
  }
  PrometheusConfig& p = c.prometheus;
  if (s.has("per_rank_windows")) {
    if (auto err = window_list(s, "per_rank_windows", p.per_rank_windows_ns); !err.empty()) {
      return err;
    }
  }
  if (s.has("job_windows")) {
    if (auto err = window_list(s, "job_windows", p.job_windows_ns); !err.empty()) return err;
    if (p.job_windows_ns.empty()) return s.error("job_windows", "needs at least one window");
  }
  if (s.has("step_window")) {
    std::string name;
    if (auto err = s.string("step_window", name); !err.empty()) return err;
    p.step_window_ns = parse_window(name);
    if (!p.step_window_ns) {
      return s.error("step_window", "'" + name + "' is not a window like \"60s\" or \"total\"");
    }
  }
  if (s.has("rank_activity")) {
    if (auto err = s.boolean("rank_activity", p.rank_activity); !err.empty()) return err;
  }
  if (s.has("top_files")) {
    std::int64_t n = 0;
    if (auto err = s.integer("top_files", n, 0, static_cast<std::int64_t>(kMaxTopFilesShown));
        !err.empty()) {
      return err;
    }
    p.top_files = static_cast<std::size_t>(n);
  }
  bool histogram = false;
  if (s.has("step_histogram")) {
    if (auto err = s.boolean("step_histogram", histogram); !err.empty()) return err;
  }
  std::vector<std::int64_t> buckets = default_step_histogram_buckets();
  if (s.has("step_histogram_buckets")) {
    std::vector<std::string> names;
    if (auto err = s.string_list("step_histogram_buckets", names); !err.empty()) return err;
    if (names.empty()) return s.error("step_histogram_buckets", "needs at least one bucket");
    buckets.clear();
    for (const auto& n : names) {
      const auto ns = parse_duration(n);
      if (!ns) return s.error("step_histogram_buckets", duration_problem(n));
      buckets.push_back(*ns);
    }
    if (const std::size_t i = first_unordered_bound(buckets); i < buckets.size()) {
      return s.error("step_histogram_buckets",
                     "'" + names[i] + "' is not a duration longer than the bucket before it");
    }
    if (buckets.size() > kMaxStepHistogramBounds) {
      return s.error("step_histogram_buckets",
                     "at most " + std::to_string(kMaxStepHistogramBounds) + " buckets");
    }
  }
  if (histogram) {
    c.engine.step_histogram_bounds_ns = std::move(buckets);
  } else {
    c.engine.step_histogram_bounds_ns.clear();
  }
  return {};
}

std::string apply_alerts(const toml::value& t, DaemonConfig& c) {
  return apply_alerts_toml(t, {}, c.alerts);
}

std::string apply_log(const toml::value& t, DaemonConfig& c) {
  TomlFields s(t, "log", {});
  if (auto err = s.allow_only({"level"}); !err.empty()) return err;
  if (s.has("level")) {
    std::string level;
    if (auto err = s.string("level", level); !err.empty()) return err;
    static constexpr std::string_view kLevels[] = {"trace", "debug", "info",
                                                   "warn",  "error", "off"};
    if (std::find(std::begin(kLevels), std::end(kLevels), level) == std::end(kLevels)) {
      return s.error("level",
                     "expected one of trace, debug, info, warn, error, off; got '" + level + "'");
    }
    c.log_level = level;
  }
  return {};
}

}  // namespace

DaemonConfig default_daemon_config() {
  DaemonConfig c;
  c.ingest_endpoints = {"tcp://127.0.0.1:5557", default_ipc_endpoint()};
  return c;
}

const std::vector<std::int64_t>& default_step_histogram_buckets() {
  static const std::vector<std::int64_t> kBuckets = [] {
    std::vector<std::int64_t> out;
    for (std::int64_t ms : {10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000})
      out.push_back(ms * 1'000'000);
    return out;
  }();
  return kBuckets;
}

std::string format_window(std::int64_t ns) {
  if (ns == 0) return "total";
  if (ns % kNsPerSecond == 0) return std::to_string(ns / kNsPerSecond) + "s";
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  return std::to_string(ns) + "ns";
}

bool parse_host_port(std::string_view text, std::string& host, std::uint16_t& port) {
  std::string_view h;
  std::string_view p;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return false;
    }
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
  }
  if (h.empty() || p.empty()) return false;
  unsigned value = 0;
  auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), value);
  if (ec != std::errc() || ptr != p.data() + p.size() || value > 65535) return false;
  host = std::string(h);
  port = static_cast<std::uint16_t>(value);
  return true;
}

std::string apply_toml(std::string_view toml_text, std::string_view file_name,
                       DaemonConfig& config) {
  if (auto err = check_toml_text(toml_text, file_name); !err.empty()) return err;
  toml::value root;
  try {
    std::istringstream in{std::string(toml_text)};
    root = toml::parse(in, std::string(file_name));
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
  if (!root.is_table()) return std::string(file_name) + ": not a TOML table";
  TomlFields top(root, "", file_name);
  if (auto err =
          top.allow_only({"ingest", "http", "engine", "verdict", "straggler", "classes", "journal",
                          "log", "state", "alerts", "prometheus", "upstream", "tree"});
      !err.empty()) {
    return err;
  }
  using Apply = std::string (*)(const toml::value&, DaemonConfig&);
  struct Section {
    const char* name;
    Apply apply;
  };
  for (auto [name, apply] :
       {Section{"ingest", apply_ingest}, Section{"http", apply_http},
        Section{"engine", apply_engine}, Section{"verdict", apply_verdict},
        Section{"straggler", apply_straggler}, Section{"journal", apply_journal},
        Section{"log", apply_log}, Section{"state", apply_state}, Section{"alerts", apply_alerts},
        Section{"prometheus", apply_prometheus},
        Section{"upstream",
                [](const toml::value&t, DaemonConfig&c) { return apply_upstream(t, c.tree); }},
        Section{"tree",
                [](const toml::value&t, DaemonConfig&c) { return apply_tree(t, c.tree); }}}) {
    if (!top.has(name)) continue;
    const toml::value& section = root.as_table().at(name);
    if (!section.is_table()) return top.error(name, "must be a table");
    if (auto err = apply(section, config); !err.empty()) {
      // Errors with a line number already start with the file name.
      if (err.rfind(std::string(file_name) + ":", 0) == 0) return err;
      return std::string(file_name) + ": " + err;
    }
  }
  if (top.has("classes")) {
    // Same syntax as `stallwatch analyze --classes FILE.toml` (collector/replay).
    ClassRulesConfig classes;
    if (auto err = class_rules_from_toml(root.as_table().at("classes"), file_name, classes);
        !err.empty()) {
      return err;
    }
    if (auto err = build_class_mapping(classes, config.engine.classes); !err.empty()) {
      return std::string(file_name) + ": classes: " + err;
    }
  }
  return {};
}

std::string load_config_file(const std::string& path, DaemonConfig& config) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read config file '" + path + "'";
  std::ostringstream text;
  text << in.rdbuf();
  config.config_path = path;
  return apply_toml(text.str(), path, config);
}

}  // namespace stallwatch::collector
