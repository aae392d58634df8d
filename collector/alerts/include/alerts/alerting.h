// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "alerts/alert_evaluator.h"
#include "alerts/alert_view.h"
#include "alerts/alerts_config.h"
#include "alerts/sink_stats.h"
#include "alerts/sink_worker.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

// stallwatchd's alerting: the rule evaluator plus one SinkWorker per
// configured sink (log, Alertmanager, webhooks, exec). on_tick() runs on the
// tick thread after each engine tick: it evaluates the snapshot, queues the
// firing/resolved notifications (never waiting for a sink) and returns the
// alerts as the API shows them. Owned by the Daemon; on_tick() and
// stop() from the tick/main thread, sink_stats() from any thread.
//
// With a `state_path`, the firing alerts are kept in that file whenever they
// change, and read back at construction: after a restart an alert of the same
// rule, job and rank that breaches again within kResumeWithin resumes firing
// with its original times, without a second notification (Alertmanager sinks
// keep re-sending it with the same startsAt).
class Alerting {
 public:
  // `config` must pass validate() for the engine's `windows_ns`; `base_url`
  // is where links in notifications point (the dashboard), without a
  // trailing slash.
  static constexpr std::int64_t kResumeWithin = 600'000'000'000;  // 10 min

  Alerting(const AlertsConfig& config, const std::vector<std::int64_t>& windows_ns,
           std::string base_url, std::string state_path = {});
  ~Alerting();
  Alerting(const Alerting&) = delete;
  Alerting& operator=(const Alerting&) = delete;

  void start();
  // Gives the sinks up to `drain` in total to send what is queued.
  void stop(std::chrono::milliseconds drain = std::chrono::milliseconds(2000));

  std::vector<AlertView> on_tick(const Snapshot& snapshot);

  std::vector<SinkStats> sink_stats() const;
  std::size_t rule_count() const { return evaluator_.rules().size(); }

 private:
  void save_firing();

  std::vector<std::string> skipped_defaults_;
  AlertEvaluator evaluator_;
  std::string state_path_;
  std::vector<FiringIncident> saved_;  // as last written to state_path_
  std::string save_error_;             // the last failure, logged once
  std::vector<std::unique_ptr<SinkWorker>> sinks_;
};

// The API's form of an alert (docs/api.md `GET /api/v1/alerts`).
AlertView to_alert_view(const Alert& alert);

// "http[s]://<host>:<port>" for links, with the machine's name when the
// dashboard listens on a wildcard address.
std::string dashboard_base_url(const std::string& http_host, std::uint16_t http_port,
                               bool https = false);

}  // namespace stallwatch::collector
