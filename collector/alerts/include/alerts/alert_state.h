// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "alerts/alert_rule.h"

namespace stallwatch::collector {

enum class AlertPhase : std::uint8_t { kInactive = 0, kPending = 1, kFiring = 2, kResolved = 3 };

// What one observation changed. Only kFiring and kResolved are notified.
enum class AlertTransition : std::uint8_t {
  kNone = 0,
  kPending = 1,    // inactive/resolved -> pending
  kFiring = 2,     // -> firing
  kResolved = 3,   // firing -> resolved
  kCancelled = 4,  // pending -> inactive, never fired
};

std::string_view to_string(AlertPhase p);  // "inactive", "pending", "firing", "resolved"

// `for` and `keep_firing_for` count as elapsed this much early: evaluations
// come once per tick, and a tick that lands a few microseconds short of the
// deadline must not cost a whole tick.
inline constexpr std::int64_t kAlertTimerSlackNs = 5'000'000;

// The state machine of one alert instance (one rule for one rank or job):
//
//   inactive/resolved --breach--> pending --`for` elapsed, not recovered--> firing
//   pending --recovered--> inactive
//   firing --recovered for `keep_firing_for`--> resolved
//
// Between the clear threshold and the threshold (the hysteresis band) the
// phase holds. With `for` = 0 a breach fires at once. Pure: time is a
// parameter (collector clock, ns), observations must come in time order.
// Not thread-safe; the evaluator owns it.
class AlertState {
 public:
  AlertTransition observe(const AlertRule& rule, std::int64_t now_ns, double value);
  // The subject is gone (rank forgotten): a firing alert resolves at once, a
  // pending one is cancelled.
  AlertTransition vanish(std::int64_t now_ns);
  // Firing again as the same incident, with its original times (after a
  // restart): no transition to notify.
  void resume_firing(std::int64_t active_since_ns, std::int64_t fired_at_ns);

  AlertPhase phase() const { return phase_; }
  bool active() const { return phase_ == AlertPhase::kPending || phase_ == AlertPhase::kFiring; }
  std::int64_t active_since_ns() const { return active_since_ns_; }
  std::optional<std::int64_t> fired_at_ns() const { return fired_at_ns_; }
  std::optional<std::int64_t> resolved_at_ns() const { return resolved_at_ns_; }

 private:
  AlertTransition fire(std::int64_t now_ns);
  AlertTransition resolve(std::int64_t now_ns);

  AlertPhase phase_ = AlertPhase::kInactive;
  std::int64_t active_since_ns_ = 0;
  std::optional<std::int64_t> fired_at_ns_;
  std::optional<std::int64_t> resolved_at_ns_;
  std::optional<std::int64_t> recovered_since_ns_;  // firing, recovered since then
};

}  // namespace stallwatch::collector
