// SPDX-License-Identifier: MIT
#include "alerts/alerting.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "alertmanager_sink.h"
#include "exec_sink.h"
#include "firing_store.h"
#include "log_sink.h"
#include "webhook_sink.h"

namespace stallwatch::collector {
namespace {

std::chrono::milliseconds ms(std::int64_t ns) {
  return std::chrono::milliseconds(ns / 1'000'000);
}

SinkWorkerOptions worker_options(const SinkDelivery& d, std::string kind, std::string target) {
  SinkWorkerOptions o;
  o.name = d.name;
  o.kind = std::move(kind);
  o.target = std::move(target);
  o.queue_capacity = d.queue;
  o.max_attempts = d.max_attempts;
  o.max_per_minute = d.max_per_minute;
  return o;
}

}  // namespace

Alerting::Alerting(const AlertsConfig& config, const std::vector<std::int64_t>& windows_ns,
                   std::string base_url, std::string state_path)
    : evaluator_(config.effective_rules(windows_ns, &skipped_defaults_),
                 config.resolved_retention_ns),
      state_path_(std::move(state_path)) {
  if (!state_path_.empty()) {
    std::string error;
    if (auto incidents = load_firing_incidents(state_path_, error)) {
      if (!incidents->empty()) {
        spdlog::info(
            "alerts: {} alert(s) firing before the restart resume without a new "
            "notification if they breach again within {} s",
            incidents->size(), kResumeWithin / 1'000'000'000);
      }
      saved_ = *incidents;
      evaluator_.resume(std::move(*incidents), kResumeWithin);
    } else {
      spdlog::warn("alerts: firing alerts before the restart are not resumed: {}", error);
    }
  }
  if (config.log) {
    SinkWorkerOptions o;
    o.name = "log";
    o.kind = "log";
    o.max_attempts = 1;
    sinks_.push_back(std::make_unique<SinkWorker>(std::make_unique<LogSink>(), o));
  }
  for (const auto& c : config.alertmanagers) {
    SinkWorkerOptions o = worker_options(c.delivery, "alertmanager", c.url);
    o.repeat_interval = ms(c.resend_interval_ns);
    sinks_.push_back(
        std::make_unique<SinkWorker>(std::make_unique<AlertmanagerSink>(c, base_url), o));
  }
  for (const auto& c : config.webhooks) {
    SinkWorkerOptions o = worker_options(c.delivery, "webhook", c.url);
    o.repeat_interval = ms(c.repeat_interval_ns);
    sinks_.push_back(std::make_unique<SinkWorker>(std::make_unique<WebhookSink>(c, base_url), o));
  }
  for (const auto& c : config.execs) {
    SinkWorkerOptions o = worker_options(c.delivery, "exec", c.command.front());
    o.max_batch = 1;  // a retry must not re-run commands that succeeded
    sinks_.push_back(std::make_unique<SinkWorker>(std::make_unique<ExecSink>(c, base_url), o));
  }
}

Alerting::~Alerting() {
  stop(std::chrono::milliseconds(0));
}

void Alerting::start() {
  std::string names;
  for (auto& s : sinks_) {
    s->start();
    names += (names.empty() ? "" : ", ") + s->stats().name;
  }
  spdlog::info("alerts: {} rule(s), notifying {}", evaluator_.rules().size(),
               names.empty() ? "nobody" : names);
  for (const std::string& name : skipped_defaults_) {
    spdlog::warn("alerts: default rule {} is off: its window is not in engine.windows", name);
  }
}

void Alerting::stop(std::chrono::milliseconds drain) {
  const auto deadline = std::chrono::steady_clock::now() + drain;
  for (auto& s : sinks_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    s->stop(std::max(left, std::chrono::milliseconds(0)));
  }
}

std::vector<AlertView> Alerting::on_tick(const Snapshot& snapshot) {
  for (const Alert& a : evaluator_.evaluate(snapshot)) {
    for (auto& s : sinks_)
      s->enqueue(a);
  }
  for (const Alert& a : evaluator_.take_resumed()) {
    for (auto& s : sinks_)
      s->resume(a);
  }
  if (!state_path_.empty()) save_firing();
  std::vector<AlertView> views;
  for (const Alert& a : evaluator_.alerts())
    views.push_back(to_alert_view(a));
  return views;
}

void Alerting::save_firing() {
  std::vector<FiringIncident> firing = evaluator_.firing_incidents();
  if (firing == saved_) return;
  const std::string error = save_firing_incidents(state_path_, firing);
  if (!error.empty()) {
    if (error != save_error_) spdlog::warn("alerts: cannot keep the firing alerts: {}", error);
    save_error_ = error;
    return;
  }
  save_error_.clear();
  saved_ = std::move(firing);
}

std::vector<SinkStats> Alerting::sink_stats() const {
  std::vector<SinkStats> out;
  for (const auto& s : sinks_)
    out.push_back(s->stats());
  return out;
}

AlertView to_alert_view(const Alert& a) {
  AlertView v;
  v.id = a.id;
  v.name = a.name;
  v.state = std::string(to_string(a.phase));
  v.severity = a.severity;
  v.job = a.job;
  v.rank = a.rank;
  v.scope = std::string(to_string(a.scope));
  v.metric = a.metric;
  v.window = a.window;
  v.value = a.value;
  v.threshold = a.threshold;
  v.verdict = a.verdict;
  v.cause = a.cause;
  v.labels = a.labels;
  v.annotations = a.annotations;
  v.active_since_ns = a.active_since_ns;
  v.fired_at_ns = a.fired_at_ns;
  v.resolved_at_ns = a.resolved_at_ns;
  return v;
}

std::string dashboard_base_url(const std::string& http_host, std::uint16_t http_port, bool https) {
  std::string host = http_host;
  if (host == "0.0.0.0" || host == "::" || host.empty()) {
    char name[256] = {};
    host = ::gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
  }
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return (https ? "https://" : "http://") + host + ":" + std::to_string(http_port);
}

}  // namespace stallwatch::collector
