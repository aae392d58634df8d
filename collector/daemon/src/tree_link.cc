// SPDX-License-Identifier: MIT
#include "tree_link.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "http_client/http_client.h"
#include "ingest_loop.h"
#include "keys/key_files.h"
#include "tree/series_merge.h"

namespace stallwatch::collector {
namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "node";
  return name.data();
}

std::string percent_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

bool tree_needs_keys(const TreeConfig& tree) {
  return !tree.listen.empty() || !tree.upstream_server_key.empty() ||
         !tree.upstream_server_key_file.empty();
}

TreeLink::TreeLink(const DaemonConfig& config)
    : config_(config),
      token_(config.tree.node_token.empty() ? config.http_token : config.tree.node_token) {
  const TreeConfig& t = config_.tree;
  if (!t.listen.empty() || !t.plaintext_listen.empty()) {
    // A node's reports carry its snapshot's windows: the configured ones, then 0 (total).
    std::vector<std::int64_t> windows = config_.engine.windows_ns;
    if (windows.empty() || windows.back() != 0) windows.push_back(0);
    remote_ = std::make_unique<RemoteRanks>(std::move(windows), config_.engine.silent_after_ns,
                                            config_.engine.forget_after_ns);
  }
}

TreeLink::~TreeLink() {
  stop();
}

std::string TreeLink::start(const std::optional<CurveKeyPair>& keys, std::uint16_t http_port) {
  const TreeConfig& t = config_.tree;
  if (remote_) {
    receiver_ = std::make_unique<Receiver>();
    for (const auto& e : t.plaintext_listen) {
      if (auto err = receiver_->bind(e)) return "cannot listen for nodes on " + *err;
    }
    if (!t.listen.empty()) {
      if (!keys) return "tree: no key pair for the CURVE endpoints";
      if (auto err = receiver_->enable_curve(CurveServerKeys{keys->secret_key, {}})) {
        return "tree: " + *err;
      }
      for (const auto& e : t.listen) {
        if (auto err = receiver_->bind_curve(e)) return "cannot listen for nodes on " + *err;
      }
    }
    for (const auto& e : receiver_->endpoints())
      spdlog::info("listening for nodes on {}", e);
  }
  if (!t.upstream.empty()) {
    UpstreamOptions o;
    o.endpoint = t.upstream;
    o.node = t.node.empty() ? host_name() : t.node;
    o.http_address = advertised_api(t.advertise_http, config_.http_host, http_port,
                                    !config_.http_tls_cert.empty());
    o.send_hwm = t.upstream_hwm;
    std::string error;
    if (!t.upstream_server_key_file.empty()) {
      auto key = read_key_file(t.upstream_server_key_file, error);
      if (!key) return "upstream: " + error;
      o.server_key = *key;
    } else {
      o.server_key = t.upstream_server_key;
    }
    if (!o.server_key.empty()) {
      if (!keys) return "upstream: no key pair for CURVE";
      o.public_key = keys->public_key;
      o.secret_key = keys->secret_key;
    }
    sender_ = std::make_unique<UpstreamSender>(std::move(o));
    if (auto err = sender_->start(); !err.empty()) return err;
    spdlog::info("reporting to the head at {}{} as node '{}'", t.upstream,
                 sender_->options().server_key.empty() ? "" : " (CURVE)", sender_->options().node);
  }
  if (receiver_) {
    running_ = true;
    receive_thread_ = std::thread([this] { receive_loop(); });
  }
  return {};
}

void TreeLink::stop() {
  running_ = false;
  if (receive_thread_.joinable()) receive_thread_.join();
}

void TreeLink::receive_loop() {
  pthread_setname_np(pthread_self(), "tree-receive");
  while (running_) {
    receiver_->receive(100, [this](std::span<const std::uint8_t> frame) {
      remote_->accept(frame, collector_now_ns());
    });
  }
}

std::shared_ptr<const Snapshot> TreeLink::merge(std::shared_ptr<const Snapshot> local,
                                                std::int64_t now_ns) {
  if (!remote_ || remote_->empty()) return local;
  auto merged = std::make_shared<Snapshot>(*local);
  remote_->merge_into(*merged, now_ns, config_.engine);
  return merged;
}

void TreeLink::send(const Snapshot& snapshot) {
  if (sender_) sender_->send(snapshot);
}

void TreeLink::fill(TreeStatus& s) const {
  if (sender_) {
    s.upstream = sender_->options().endpoint;
    s.node = sender_->options().node;
    s.upstream_curve = !sender_->options().server_key.empty();
    const UpstreamStats& u = sender_->stats();
    s.reports_sent = u.reports_sent;
    s.reports_unsent = u.reports_unsent;
    s.bytes_sent = u.bytes_sent;
  }
  if (remote_) {
    s.listen = receiver_->endpoints();
    s.curve_listen = receiver_->curve_endpoints();
    RemoteRanksStats r = remote_->stats();
    s.nodes = r.nodes;
    s.remote_ranks = r.ranks;
    s.reports_received = r.reports_received;
    s.reports_rejected = r.reports_rejected;
    s.bytes_received = r.bytes_received;
    s.last_rejection = std::move(r.last_rejection);
    s.timelines_fetched = timeline_fetches_.load(std::memory_order_relaxed);
    s.timeline_fetch_failures = timeline_failures_.load(std::memory_order_relaxed);
    s.series_fetched = series_fetches_.load(std::memory_order_relaxed);
    s.series_fetch_failures = series_failures_.load(std::memory_order_relaxed);
    std::lock_guard lock(failure_mutex_);
    s.last_timeline_failure = last_timeline_failure_;
    s.last_series_failure = last_series_failure_;
  }
}

struct TreeLink::Fetched {
  std::string base;  // the node's base URL, with its scheme
  HttpResponse response;
};

TreeLink::Fetched TreeLink::fetch(const std::string& address, const std::string& target,
                                  std::chrono::milliseconds timeout) const {
  Fetched f;
  // Nodes older than the scheme in their address serve plain http.
  f.base = address.find("://") == std::string::npos ? "http://" + address : address;
  HttpRequest request;
  request.url = f.base + target;
  if (!token_.empty()) request.headers.emplace_back("Authorization", "Bearer " + token_);
  request.tls.ca_file = config_.tree.node_ca_file;
  request.timeout = timeout;
  request.connect_timeout = std::min(request.connect_timeout, timeout);
  request.user_agent = "stallwatchd";
  f.response = http_request(request);
  return f;
}

std::string TreeLink::failure(std::string_view what, const std::string& node,
                              const Fetched& f) const {
  const HttpResponse& r = f.response;
  const std::string why = r.answered() ? "it answered HTTP " + std::to_string(r.status) : r.error;
  std::string message = std::string(what) + " from node '" + node + "' at " + f.base + ": " + why;
  if (r.tls_failure && config_.tree.node_ca_file.empty()) {
    message += " (a node with its own CA needs [tree] node_ca_file)";
  } else if (r.status == 401) {
    message += " (the node takes another token: [tree] node_token_file)";
  }
  return message;
}

void TreeLink::keep_failure(std::string& last, const std::string& message) const {
  std::lock_guard lock(failure_mutex_);
  if (message != last) spdlog::warn("{}", message);
  last = message;
}

std::optional<RemoteTimeline> TreeLink::remote_timeline(std::string_view job, std::int32_t rank,
                                                        std::int64_t seconds) const {
  if (!remote_) return std::nullopt;
  auto owner = remote_->owner(job, rank);
  if (!owner) return std::nullopt;
  Fetched f = fetch(owner->address,
                    "/api/v1/jobs/" + percent_encode(job) + "/ranks/" + std::to_string(rank) +
                        "/timeline?seconds=" + std::to_string(seconds),
                    std::chrono::milliseconds(3000));
  if (f.response.ok()) {
    timeline_fetches_.fetch_add(1, std::memory_order_relaxed);
    return RemoteTimeline{200, std::move(f.response.body)};
  }
  if (f.response.status == 404)
    return RemoteTimeline{404, "rank " + std::to_string(rank) + " of job '" + std::string(job) +
                                   "' not found on node '" + owner->node + "'"};
  std::string message = failure("cannot fetch the timeline", owner->node, f);
  timeline_failures_.fetch_add(1, std::memory_order_relaxed);
  keep_failure(last_timeline_failure_, message);
  return RemoteTimeline{502, std::move(message)};
}

std::optional<Series> TreeLink::node_series(
    const RemoteRanks::NodeRanks& node, const std::string& target,
    std::chrono::steady_clock::time_point deadline,
    std::vector<std::pair<std::string, std::string>>& failed, std::string& error) const {
  const std::string what = "cannot fetch the series from node '" + node.node + "'";
  if (node.address.empty()) {
    error = what + ": it reports no API address ([upstream] advertise_http)";
    return std::nullopt;
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left < std::chrono::milliseconds(100)) {
    error = what + ": not asked, the head's " + std::to_string(kSeriesBudget.count() / 1000) +
            " s for a series ran out on its other nodes";
    return std::nullopt;
  }
  Fetched f = fetch(node.address, target, std::min(left, std::chrono::milliseconds(3000)));
  if (!f.response.ok()) {
    error = failure("cannot fetch the series", node.node, f);
    return std::nullopt;
  }
  NodeSeries answer;
  if (std::string why = parse_series_json(f.response.body, answer); !why.empty()) {
    error = what + " at " + f.base + ": its answer is not a series: " + why;
    return std::nullopt;
  }
  const std::int64_t res = config_.engine.resolution_ns;
  if (answer.series.step_ns != res) {
    error = what + " at " + f.base + ": it charts one point every " +
            std::to_string(static_cast<double>(answer.series.step_ns) / 1e9) +
            " s, this head every " + std::to_string(static_cast<double>(res) / 1e9) +
            " s ([engine] resolution)";
    return std::nullopt;
  }
  failed.insert(failed.end(), answer.failed_nodes.begin(), answer.failed_nodes.end());
  keep_ranks(answer.series, node.ranks);
  return std::move(answer.series);
}

std::optional<RemoteSeries> TreeLink::remote_series(std::string_view job, std::string_view metric,
                                                    std::string_view window, std::int64_t seconds,
                                                    const Series* local) const {
  if (!remote_) return std::nullopt;
  std::vector<RemoteRanks::NodeRanks> nodes = remote_->job_nodes(job);
  // A local rank wins over a remote one: a node whose ranks are all local
  // is not asked.
  if (local != nullptr) {
    for (RemoteRanks::NodeRanks& n : nodes) {
      std::erase_if(n.ranks, [&](std::int32_t r) {
        return std::find(local->ranks.begin(), local->ranks.end(), r) != local->ranks.end();
      });
    }
  }
  std::erase_if(nodes, [](const RemoteRanks::NodeRanks& n) { return n.ranks.empty(); });
  if (nodes.empty()) return std::nullopt;

  // A node's grid may end a few steps before the head's: ask for a little
  // more, so that the head's first points have its values too.
  constexpr std::int64_t kMarginSeconds = 10;
  const std::string target =
      "/api/v1/jobs/" + percent_encode(job) + "/series?metric=" + percent_encode(metric) +
      "&window=" + percent_encode(window) + "&seconds=" + std::to_string(seconds + kMarginSeconds);
  const auto deadline = std::chrono::steady_clock::now() + kSeriesBudget;
  std::vector<std::optional<Series>> got(nodes.size());
  std::vector<std::string> errors(nodes.size());
  std::vector<std::vector<std::pair<std::string, std::string>>> below(nodes.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < nodes.size(); i = next++)
      got[i] = node_series(nodes[i], target, deadline, below[i], errors[i]);
  };
  if (nodes.size() == 1) {
    work();
  } else {
    std::vector<std::thread> fetchers;
    for (std::size_t i = 0; i < std::min(nodes.size(), kSeriesFetchers); ++i)
      fetchers.emplace_back(work);
    for (std::thread& t : fetchers)
      t.join();
  }

  RemoteSeries out;
  std::vector<SeriesPart> parts;
  if (local != nullptr) parts.push_back({local, 0});
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (got[i]) {
      series_fetches_.fetch_add(1, std::memory_order_relaxed);
      parts.push_back({&*got[i], nodes[i].clock_offset_ns});
      std::lock_guard lock(failure_mutex_);
      if (auto it = series_failing_.find(nodes[i].node); it != series_failing_.end()) {
        spdlog::info("node '{}' gives its series again", nodes[i].node);
        series_failing_.erase(it);
      }
    } else {
      series_failures_.fetch_add(1, std::memory_order_relaxed);
      std::lock_guard lock(failure_mutex_);
      std::string& last = series_failing_[nodes[i].node];
      if (last != errors[i]) spdlog::warn("{}", errors[i]);
      last = errors[i];
      last_series_failure_ = errors[i];
      out.failed_nodes.emplace_back(nodes[i].node, errors[i]);
    }
    out.failed_nodes.insert(out.failed_nodes.end(), below[i].begin(), below[i].end());
  }
  const std::int64_t res = config_.engine.resolution_ns;
  const std::int64_t points =
      std::clamp<std::int64_t>(seconds * 1'000'000'000 / res, 1, config_.engine.history_ns / res);
  auto merged = merge_series(parts, res, points);
  if (!merged) {
    out.status = 502;
    out.error = "no series of job '" + std::string(job) + "': no node that owns its ranks gave one";
    for (const auto& [node, error] : out.failed_nodes)
      out.error += "; " + error;
    return out;
  }
  out.series = std::move(*merged);
  return out;
}

}  // namespace stallwatch::collector
