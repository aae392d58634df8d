// SPDX-License-Identifier: MIT
#include "tree_link.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>

#include "http_client/http_client.h"
#include "ingest_loop.h"
#include "keys/key_files.h"

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
    std::lock_guard lock(failure_mutex_);
    s.last_timeline_failure = last_timeline_failure_;
  }
}

std::optional<RemoteTimeline> TreeLink::remote_timeline(std::string_view job, std::int32_t rank,
                                                        std::int64_t seconds) const {
  if (!remote_) return std::nullopt;
  auto owner = remote_->owner(job, rank);
  if (!owner) return std::nullopt;
  // Nodes older than the scheme in their address serve plain http.
  const std::string base =
      owner->address.find("://") == std::string::npos ? "http://" + owner->address : owner->address;
  HttpRequest request;
  request.url = base + "/api/v1/jobs/" + percent_encode(job) + "/ranks/" + std::to_string(rank) +
                "/timeline?seconds=" + std::to_string(seconds);
  if (!token_.empty()) request.headers.emplace_back("Authorization", "Bearer " + token_);
  request.tls.ca_file = config_.tree.node_ca_file;
  request.timeout = std::chrono::milliseconds(3000);
  request.user_agent = "stallwatchd";
  HttpResponse response = http_request(request);
  if (response.ok()) {
    timeline_fetches_.fetch_add(1, std::memory_order_relaxed);
    return RemoteTimeline{200, std::move(response.body)};
  }
  if (response.status == 404)
    return RemoteTimeline{404, "rank " + std::to_string(rank) + " of job '" + std::string(job) +
                                   "' not found on node '" + owner->node + "'"};
  const std::string why =
      response.answered() ? "it answered HTTP " + std::to_string(response.status) : response.error;
  std::string message =
      "cannot fetch the timeline from node '" + owner->node + "' at " + base + ": " + why;
  if (response.tls_failure && config_.tree.node_ca_file.empty()) {
    message += " (a node with its own CA needs [tree] node_ca_file)";
  } else if (response.status == 401) {
    message += " (the node takes another token: [tree] node_token_file)";
  }
  timeline_failures_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(failure_mutex_);
    if (message != last_timeline_failure_) spdlog::warn("{}", message);
    last_timeline_failure_ = message;
  }
  return RemoteTimeline{502, std::move(message)};
}

}  // namespace stallwatch::collector
