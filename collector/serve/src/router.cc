// SPDX-License-Identifier: MIT
#include "router.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "api_json.h"
#include "catalog/metric_table.h"
#include "engine/job_summary.h"
#include "serve/prometheus_text.h"
#include "serve/snapshot_json.h"
#include "url.h"

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kDefaultTimelineSeconds = 10;
constexpr std::int64_t kDefaultSeriesSeconds = 600;

const Snapshot& snapshot_of(const PublishedState& state) {
  static const Snapshot kEmpty;
  return state.snapshot ? *state.snapshot : kEmpty;
}

HttpResponse json(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
  return r;
}

template <typename Int>
std::optional<Int> parse_int(std::string_view text) {
  Int value{};
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// The optional positive integer `seconds`, clamped to `max`.
std::optional<std::int64_t> seconds_param(const QueryParams& params, std::int64_t fallback,
                                          std::int64_t max) {
  const std::string* text = find_param(params, "seconds");
  if (text == nullptr) return std::min(fallback, max);
  const auto v = parse_int<std::int64_t>(*text);
  if (!v || *v <= 0) return std::nullopt;
  return std::min(*v, max);
}

std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('\'');
  out.append(s);
  out.push_back('\'');
  return out;
}

}  // namespace

Router::Router(const ServeConfig& config, const ApiBackend& backend, const ServeCounters& counters)
    : config_(config), backend_(backend), counters_(counters), auth_(config.bearer_token) {}

HttpResponse Router::error(unsigned status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  r.body = error_json(status, message);
  return r;
}

bool Router::is_stream(std::string_view target) const {
  return split_target(target).path == "/api/v1/stream";
}

bool Router::authorized(const HttpRequest& request) const {
  if (!auth_.enabled()) return true;
  const auto params = parse_query(split_target(request.target).query);
  return auth_.allows(request.authorization, params ? find_param(*params, "token") : nullptr);
}

HttpResponse Router::handle(const HttpRequest& request) const {
  if (request.target.empty() || request.target.front() != '/') {
    return error(400, "request target must be an absolute path");
  }
  const Target target = split_target(request.target);
  const std::vector<std::string_view> segments = split_path(target.path);
  const bool api = segments.size() >= 2 && segments[0] == "api" && segments[1] == "v1";
  const bool known = target.path == "/healthz" || target.path == "/metrics" || api;

  HttpResponse response;
  if (known && target.path != "/healthz" && !authorized(request)) {
    response = error(401, "missing or wrong bearer token");
    response.headers.emplace_back("WWW-Authenticate", "Bearer");
    return response;
  }
  if (target.path == "/healthz") {
    response = json(healthz_json(backend_.current()->status));
  } else if (target.path == "/metrics") {
    response = metrics();
  } else if (api) {
    response = route_api(segments, target.query);
  } else {
    response = static_file(target.path);
  }
  if (response.status != 404 && request.method != "GET" && request.method != "HEAD") {
    response =
        error(405, "method " + std::string(request.method) + " not allowed; use GET or HEAD");
    response.headers.emplace_back("Allow", "GET, HEAD");
  }
  return response;
}

HttpResponse Router::route_api(const std::vector<std::string_view>& s,
                               std::string_view query) const {
  const std::size_t n = s.size();
  if (n == 3 && s[2] == "status") {
    const auto state = backend_.current();
    return json(status_json(*state, SnapshotJson(snapshot_of(*state)), counters_.load()));
  }
  if (n == 3 && s[2] == "alerts") return json(alerts_json(backend_.current()->alerts));
  if (n == 3 && s[2] == "stream") return error(426, "/api/v1/stream needs a WebSocket upgrade");
  if (n == 3 && s[2] == "jobs") {
    const auto state = backend_.current();
    std::string body;
    JsonWriter w(body);
    SnapshotJson(snapshot_of(*state)).write_jobs(w);
    return json(std::move(body));
  }
  if (n >= 4 && s[2] == "jobs") {
    if (n == 4) return job_detail(s[3]);
    if (n == 7 && s[4] == "ranks" && s[6] == "timeline") return timeline(s[3], s[5], query);
    if (n == 5 && s[4] == "series") return series(s[3], query);
  }
  return error(404, "no such endpoint");
}

HttpResponse Router::job_detail(std::string_view job_segment) const {
  const auto job = percent_decode(job_segment, false);
  if (!job) return error(400, "malformed percent-encoding in the job id");
  const auto state = backend_.current();
  const Snapshot& snap = snapshot_of(*state);
  const JobSnapshot* found = snap.find_job(*job);
  if (found == nullptr) return error(404, "job " + quoted(*job) + " not found");
  std::string body;
  JsonWriter w(body);
  SnapshotJson(snap).write_job_detail(w, *found);
  return json(std::move(body));
}

HttpResponse Router::timeline(std::string_view job_segment, std::string_view rank_segment,
                              std::string_view query) const {
  const auto job = percent_decode(job_segment, false);
  const auto rank_text = percent_decode(rank_segment, false);
  if (!job || !rank_text) return error(400, "malformed percent-encoding in the path");
  const auto rank = parse_int<std::int32_t>(*rank_text);
  if (!rank || *rank < 0)
    return error(400, "rank must be a non-negative integer, got " + quoted(*rank_text));
  const auto params = parse_query(query);
  if (!params) return error(400, "malformed query string");
  const auto seconds =
      seconds_param(*params, kDefaultTimelineSeconds, config_.timeline_max_seconds);
  if (!seconds) return error(400, "query parameter 'seconds' must be a positive integer");

  const auto state = backend_.current();
  const RankSnapshot* rank_snapshot = nullptr;
  const JobSnapshot* job_snapshot = snapshot_of(*state).find_job(*job);
  if (job_snapshot != nullptr) {
    for (const RankSnapshot& r : job_snapshot->ranks) {
      if (r.rank == *rank) rank_snapshot = &r;
    }
  }
  auto timeline = backend_.timeline(*job, *rank, *seconds);
  // The waits for peers are the job's, matched at the tick that published
  // the snapshot (at a head, over the ranks of all its nodes).
  if (timeline && job_snapshot != nullptr) {
    timeline->peer_waits = job_peer_waits(*job_snapshot, *rank, timeline->from_ns, timeline->to_ns);
  }
  if (!timeline) {
    if (auto remote = backend_.remote_timeline(*job, *rank, *seconds)) {
      // The node matched its own ranks' calls; this head matches the job's.
      if (remote->status == 200 && job_snapshot != nullptr) {
        return json(with_peer_waits(
            std::move(remote->body),
            job_peer_waits(*job_snapshot, *rank, std::numeric_limits<std::int64_t>::min(),
                           std::numeric_limits<std::int64_t>::max())));
      }
      if (remote->status == 200) return json(std::move(remote->body));
      return error(static_cast<unsigned>(remote->status), remote->body);
    }
  }
  if (!timeline)
    return error(404, "rank " + std::to_string(*rank) + " of job " + quoted(*job) + " not found");
  return json(timeline_json(*timeline, rank_snapshot));
}

HttpResponse Router::series(std::string_view job_segment, std::string_view query) const {
  const auto job = percent_decode(job_segment, false);
  if (!job) return error(400, "malformed percent-encoding in the job id");
  const auto params = parse_query(query);
  if (!params) return error(400, "malformed query string");

  const std::string* metric = find_param(*params, "metric");
  if (metric == nullptr) return error(400, "query parameter 'metric' is required");
  if (!catalog::find_metric(*metric)) {
    return error(400, "query parameter 'metric': unknown metric " + quoted(*metric));
  }

  const auto state = backend_.current();
  const Snapshot& snap = snapshot_of(*state);
  const std::string* window = find_param(*params, "window");
  if (window == nullptr) return error(400, "query parameter 'window' is required");
  std::optional<std::int64_t> window_ns;
  std::string choices;
  // "total" (0) is a series too: each point covers [start, t).
  for (std::int64_t ns : snap.windows_ns) {
    const std::string name = window_name(ns);
    if (name == *window) window_ns = ns;
    choices.append(choices.empty() ? "" : ", ").append(name);
  }
  if (!window_ns) {
    return error(400, "query parameter 'window': unknown window " + quoted(*window) +
                          " (one of: " + choices + ")");
  }
  const auto seconds = seconds_param(*params, kDefaultSeriesSeconds, config_.series_max_seconds);
  if (!seconds) return error(400, "query parameter 'seconds' must be a positive integer");

  if (snap.find_job(*job) == nullptr) return error(404, "job " + quoted(*job) + " not found");
  auto series = backend_.series(*job, *metric, *window_ns, *seconds * kNsPerSecond);
  // At a tree head, the ranks its nodes own come from them.
  auto remote =
      backend_.remote_series(*job, *metric, *window, *seconds, series ? &*series : nullptr);
  if (remote && remote->status != 200) {
    return error(static_cast<unsigned>(remote->status), remote->error);
  }
  if (remote) {
    remote->series.window_ns = *window_ns;
    return json(series_json(remote->series, *window, remote->failed_nodes));
  }
  if (!series) return error(404, "no series for job " + quoted(*job));
  return json(series_json(*series, *window));
}

HttpResponse Router::metrics() const {
  HttpResponse r;
  r.content_type = kPrometheusContentType;
  r.body = prometheus_text(*backend_.current(), counters_.load(), config_.prometheus);
  return r;
}

HttpResponse Router::static_file(std::string_view path) const {
  const auto file = config_.static_files ? config_.static_files(path) : std::nullopt;
  if (!file) return error(404, "not found");
  HttpResponse r;
  r.content_type = std::string(file->content_type);
  r.body = std::string(file->content);
  r.no_store = false;
  return r;
}

}  // namespace stallwatch::collector
