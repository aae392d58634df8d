// SPDX-License-Identifier: MIT
#include "alerts/alerts_config_toml.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>

#include "config/duration.h"
#include "config/toml_fields.h"
#include "http_client/http_url.h"

namespace stallwatch::collector {
namespace {

std::string apply_rule(const TomlFields& f, AlertRule& rule) {
  if (auto err = f.allow_only({"name", "metric", "window", "above", "below", "clear", "for",
                               "keep_firing_for", "scope", "aggregate", "warmup", "severity",
                               "labels", "annotations", "cause"});
      !err.empty()) {
    return err;
  }
  for (const char* key : {"name", "metric"}) {
    if (!f.has(key)) return f.error("", std::string("needs '") + key + "'");
  }
  if (auto err = f.string("name", rule.name); !err.empty()) return err;
  if (auto err = f.string("metric", rule.metric); !err.empty()) return err;
  if (!is_alert_metric(rule.metric)) {
    return f.error("metric",
                   "unknown metric '" + rule.metric + "' (known: " + alert_metric_names() + ")");
  }
  if (f.has("above") == f.has("below"))
    return f.error("", "needs exactly one of 'above' and 'below'");
  const char* threshold_key = f.has("above") ? "above" : "below";
  rule.comparison = f.has("above") ? AlertComparison::kAbove : AlertComparison::kBelow;
  if (auto err = f.number(threshold_key, rule.threshold); !err.empty()) return err;
  if (f.has("clear")) {
    if (auto err = f.number("clear", rule.clear); !err.empty()) return err;
  }
  if (rule.metric == kSilentSecondsMetric) {
    if (f.has("window")) return f.error("window", "silent_seconds has no window");
    rule.window_ns = 0;
  } else if (f.has("window")) {
    std::string window;
    if (auto err = f.string("window", window); !err.empty()) return err;
    if (window == "total") {
      rule.window_ns = 0;
    } else {
      auto ns = parse_duration(window);
      if (!ns) return f.error("window", duration_problem(window) + ", or \"total\"");
      if (*ns <= 0) return f.error("window", "'" + window + "': a window must be longer than 0");
      rule.window_ns = *ns;
    }
  }
  struct DurationKey {
    const char* key;
    std::int64_t* target;
  };
  for (auto [key, target] :
       {DurationKey{"for", &rule.for_ns}, DurationKey{"keep_firing_for", &rule.keep_firing_for_ns},
        DurationKey{"warmup", &rule.warmup_ns}}) {
    if (!f.has(key)) continue;
    if (auto err = f.duration(key, *target, true); !err.empty()) return err;
  }
  if (f.has("scope")) {
    std::string scope;
    if (auto err = f.string("scope", scope); !err.empty()) return err;
    if (scope != "rank" && scope != "job")
      return f.error("scope", "expected \"rank\" or \"job\", got '" + scope + "'");
    rule.scope = scope == "rank" ? AlertScope::kRank : AlertScope::kJob;
  }
  if (f.has("aggregate")) {
    std::string aggregate;
    if (auto err = f.string("aggregate", aggregate); !err.empty()) return err;
    if (aggregate != "mean" && aggregate != "max") {
      return f.error("aggregate", "expected \"mean\" or \"max\", got '" + aggregate + "'");
    }
    if (rule.scope != AlertScope::kJob)
      return f.error("aggregate", "only applies to scope = \"job\"");
    rule.aggregate = aggregate == "mean" ? JobAggregate::kMean : JobAggregate::kMax;
  }
  if (f.has("severity")) {
    if (auto err = f.string("severity", rule.severity); !err.empty()) return err;
  }
  if (f.has("cause")) {
    if (auto err = f.string("cause", rule.cause); !err.empty()) return err;
    if (!is_alert_cause(rule.cause)) {
      return f.error("cause", "expected \"storage\", \"preprocessing\" or \"unknown\", got '" +
                                  rule.cause + "'");
    }
    if (!rule.has_window()) return f.error("cause", "silent_seconds has no cause");
  }
  if (f.has("labels")) {
    if (auto err = f.string_table("labels", rule.labels); !err.empty()) return err;
  }
  if (f.has("annotations")) {
    if (auto err = f.string_table("annotations", rule.annotations); !err.empty()) return err;
  }
  return {};
}

std::string apply_delivery(const TomlFields& f, SinkDelivery& d) {
  if (f.has("name")) {
    if (auto err = f.string("name", d.name); !err.empty()) return err;
    if (d.name.empty()) return f.error("name", "must not be empty");
  }
  std::int64_t n = 0;
  if (f.has("queue")) {
    if (auto err = f.integer("queue", n, 1, 1'000'000); !err.empty()) return err;
    d.queue = static_cast<std::size_t>(n);
  }
  if (f.has("max_attempts")) {
    if (auto err = f.integer("max_attempts", n, 1, 100); !err.empty()) return err;
    d.max_attempts = static_cast<int>(n);
  }
  if (f.has("timeout")) {
    if (auto err = f.duration("timeout", d.timeout_ns, false); !err.empty()) return err;
  }
  if (f.has("max_per_minute")) {
    if (auto err = f.number("max_per_minute", d.max_per_minute); !err.empty()) return err;
    if (d.max_per_minute < 0)
      return f.error("max_per_minute", "must not be negative (0: no limit)");
  }
  return {};
}

std::string apply_url(const TomlFields& f, std::string& url) {
  if (!f.has("url")) return f.error("", "needs 'url'");
  if (auto err = f.string("url", url); !err.empty()) return err;
  if (auto parsed = parse_http_url(url); !parsed.ok()) return f.error("url", parsed.error);
  return {};
}

// ca_file, client_cert and client_key: PEM files, checked for readability
// here so that a typo fails at start rather than at the first alert.
std::string apply_tls(const TomlFields& f, TlsOptions& tls) {
  struct FileKey {
    const char* key;
    std::string* target;
  };
  for (auto [key, target] :
       {FileKey{"ca_file", &tls.ca_file}, FileKey{"client_cert", &tls.client_cert},
        FileKey{"client_key", &tls.client_key}}) {
    if (!f.has(key)) continue;
    if (auto err = f.string(key, *target); !err.empty()) return err;
    if (target->empty()) return f.error(key, "must not be empty");
    if (std::ifstream probe(*target); !probe) return f.error(key, "cannot read '" + *target + "'");
  }
  if (!tls.client_key.empty() && tls.client_cert.empty())
    return f.error("client_key", "needs 'client_cert'");
  return {};
}

std::string apply_alertmanager(const TomlFields& f, AlertmanagerSinkConfig& c) {
  if (auto err = f.allow_only({"url", "resend_interval", "ca_file", "client_cert", "client_key",
                               "name", "queue", "max_attempts", "timeout", "max_per_minute"});
      !err.empty()) {
    return err;
  }
  if (auto err = apply_url(f, c.url); !err.empty()) return err;
  if (auto err = apply_tls(f, c.tls); !err.empty()) return err;
  if (f.has("resend_interval")) {
    if (auto err = f.duration("resend_interval", c.resend_interval_ns, false); !err.empty())
      return err;
  }
  return apply_delivery(f, c.delivery);
}

std::string apply_webhook(const TomlFields& f, WebhookSinkConfig& c) {
  if (auto err = f.allow_only({"url", "format", "receiver", "routing_key", "headers",
                               "repeat_interval", "ca_file", "client_cert", "client_key", "name",
                               "queue", "max_attempts", "timeout", "max_per_minute"});
      !err.empty()) {
    return err;
  }
  if (auto err = apply_url(f, c.url); !err.empty()) return err;
  if (auto err = apply_tls(f, c.tls); !err.empty()) return err;
  if (f.has("format")) {
    std::string format;
    if (auto err = f.string("format", format); !err.empty()) return err;
    if (format == "generic") {
      c.format = WebhookFormat::kGeneric;
    } else if (format == "slack") {
      c.format = WebhookFormat::kSlack;
    } else if (format == "pagerduty") {
      c.format = WebhookFormat::kPagerDuty;
    } else {
      return f.error("format",
                     "expected \"generic\", \"slack\" or \"pagerduty\", got '" + format + "'");
    }
  }
  if (c.format == WebhookFormat::kPagerDuty) {
    if (!f.has("routing_key"))
      return f.error("", "format = \"pagerduty\" needs 'routing_key' (the integration key)");
    if (auto err = f.string("routing_key", c.routing_key); !err.empty()) return err;
    if (c.routing_key.empty()) return f.error("routing_key", "must not be empty");
  } else if (f.has("routing_key")) {
    return f.error("routing_key", "only applies to format = \"pagerduty\"");
  }
  if (f.has("receiver")) {
    if (auto err = f.string("receiver", c.receiver); !err.empty()) return err;
  }
  if (f.has("headers")) {
    if (auto err = f.string_table("headers", c.headers); !err.empty()) return err;
    for (const auto& [name, value] : c.headers) {
      if (name.find_first_of(" :\r\n") != std::string::npos ||
          value.find_first_of("\r\n") != std::string::npos) {
        return f.error("headers", "'" + name + "' is not a valid header");
      }
    }
  }
  if (f.has("repeat_interval")) {
    if (auto err = f.duration("repeat_interval", c.repeat_interval_ns, true); !err.empty())
      return err;
  }
  return apply_delivery(f, c.delivery);
}

std::string apply_exec(const TomlFields& f, ExecSinkConfig& c) {
  if (auto err =
          f.allow_only({"command", "name", "queue", "max_attempts", "timeout", "max_per_minute"});
      !err.empty()) {
    return err;
  }
  if (!f.has("command"))
    return f.error("",
                   "needs 'command', a list like [\"/usr/local/bin/page\", \"--team\", \"ml\"]");
  if (auto err = f.string_list("command", c.command, true); !err.empty()) {
    return f.error("command",
                   "expected a list of strings: the program and its arguments, no shell");
  }
  if (c.command.empty() || c.command[0].empty())
    return f.error("command", "needs at least the program");
  return apply_delivery(f, c.delivery);
}

// Applies `apply` to each table of `key`, which may be one table or an array
// of tables; `make` creates the element with its kind's defaults.
template <typename T>
std::string apply_tables(const toml::value& alerts, std::string_view key,
                         std::string_view file_name, std::vector<T>& out,
                         const std::function<T(std::size_t)>& make,
                         std::string (*apply)(const TomlFields&, T&)) {
  const toml::value& v = alerts.as_table().at(std::string(key));
  std::vector<const toml::value*> tables;
  if (v.is_table()) {
    tables.push_back(&v);
  } else if (v.is_array()) {
    for (const auto& item : v.as_array())
      tables.push_back(&item);
  } else {
    return TomlFields(alerts, "alerts", file_name)
        .error(key, "expected [[alerts." + std::string(key) + "]] tables");
  }
  out.clear();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const std::string path = "alerts." + std::string(key) + "[" + std::to_string(i) + "]";
    TomlFields f(*tables[i], path, file_name);
    if (!tables[i]->is_table()) return f.error("", "must be a table");
    T item = make(i);
    if (auto err = apply(f, item); !err.empty()) return err;
    out.push_back(std::move(item));
  }
  return {};
}

// "webhook", "webhook-2", ...: the default names of repeated sinks.
std::string sink_name(std::string_view kind, std::size_t index) {
  std::string out(kind);
  if (index > 0) out += "-" + std::to_string(index + 1);
  return out;
}

std::string apply_rule_table(const TomlFields& f, AlertRule& rule) {
  if (auto err = apply_rule(f, rule); !err.empty()) return err;
  rule.origin = f.where();
  return {};
}

}  // namespace

std::string apply_alerts_toml(const toml::value& alerts, std::string_view file_name,
                              AlertsConfig& config) {
  TomlFields f(alerts, "alerts", file_name);
  if (auto err = f.allow_only({"defaults", "log", "external_url", "resolved_retention", "rule",
                               "alertmanager", "webhook", "exec"});
      !err.empty()) {
    return err;
  }
  if (f.has("defaults")) {
    if (auto err = f.boolean("defaults", config.defaults); !err.empty()) return err;
  }
  if (f.has("log")) {
    if (auto err = f.boolean("log", config.log); !err.empty()) return err;
  }
  if (f.has("external_url")) {
    if (auto err = f.string("external_url", config.external_url); !err.empty()) return err;
    if (auto parsed = parse_http_url(config.external_url); !parsed.error.empty()) {
      return f.error("external_url", parsed.error);
    }
    while (!config.external_url.empty() && config.external_url.back() == '/')
      config.external_url.pop_back();
  }
  if (f.has("resolved_retention")) {
    if (auto err = f.duration("resolved_retention", config.resolved_retention_ns, true);
        !err.empty()) {
      return err;
    }
  }
  if (f.has("rule")) {
    if (auto err = apply_tables<AlertRule>(
            alerts, "rule", file_name, config.rules, [](std::size_t) { return AlertRule{}; },
            apply_rule_table);
        !err.empty()) {
      return err;
    }
  }
  if (f.has("alertmanager")) {
    if (auto err = apply_tables<AlertmanagerSinkConfig>(
            alerts, "alertmanager", file_name, config.alertmanagers,
            [](std::size_t i) {
              AlertmanagerSinkConfig c;
              c.delivery.name = sink_name("alertmanager", i);
              return c;
            },
            apply_alertmanager);
        !err.empty()) {
      return err;
    }
  }
  if (f.has("webhook")) {
    if (auto err = apply_tables<WebhookSinkConfig>(
            alerts, "webhook", file_name, config.webhooks,
            [](std::size_t i) {
              WebhookSinkConfig c;
              c.delivery.name = sink_name("webhook", i);
              return c;
            },
            apply_webhook);
        !err.empty()) {
      return err;
    }
  }
  if (f.has("exec")) {
    if (auto err = apply_tables<ExecSinkConfig>(
            alerts, "exec", file_name, config.execs,
            [](std::size_t i) {
              ExecSinkConfig c;
              c.delivery.name = sink_name("exec", i);
              c.delivery.max_attempts = 1;
              c.delivery.timeout_ns = 10 * kAlertSecond;
              c.delivery.max_per_minute = 10;
              return c;
            },
            apply_exec);
        !err.empty()) {
      return err;
    }
  }
  return {};
}

}  // namespace stallwatch::collector
