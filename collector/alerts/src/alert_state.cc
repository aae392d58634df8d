// SPDX-License-Identifier: MIT
#include "alerts/alert_state.h"

namespace stallwatch::collector {

std::string_view to_string(AlertPhase p) {
  switch (p) {
    case AlertPhase::kInactive:
      return "inactive";
    case AlertPhase::kPending:
      return "pending";
    case AlertPhase::kFiring:
      return "firing";
    case AlertPhase::kResolved:
      return "resolved";
  }
  return "inactive";
}

AlertTransition AlertState::observe(const AlertRule& rule, std::int64_t now_ns, double value) {
  switch (phase_) {
    case AlertPhase::kInactive:
    case AlertPhase::kResolved:
      if (!rule.breaches(value)) return AlertTransition::kNone;
      phase_ = AlertPhase::kPending;
      active_since_ns_ = now_ns;
      fired_at_ns_.reset();
      resolved_at_ns_.reset();
      recovered_since_ns_.reset();
      if (rule.for_ns <= 0) return fire(now_ns);
      return AlertTransition::kPending;
    case AlertPhase::kPending:
      if (rule.recovered(value)) {
        phase_ = AlertPhase::kInactive;
        return AlertTransition::kCancelled;
      }
      if (now_ns - active_since_ns_ + kAlertTimerSlackNs >= rule.for_ns) return fire(now_ns);
      return AlertTransition::kNone;
    case AlertPhase::kFiring:
      if (!rule.recovered(value)) {
        recovered_since_ns_.reset();
        return AlertTransition::kNone;
      }
      if (!recovered_since_ns_) recovered_since_ns_ = now_ns;
      if (now_ns - *recovered_since_ns_ + kAlertTimerSlackNs >= rule.keep_firing_for_ns)
        return resolve(now_ns);
      return AlertTransition::kNone;
  }
  return AlertTransition::kNone;
}

AlertTransition AlertState::vanish(std::int64_t now_ns) {
  if (phase_ == AlertPhase::kFiring) return resolve(now_ns);
  if (phase_ == AlertPhase::kPending) {
    phase_ = AlertPhase::kInactive;
    return AlertTransition::kCancelled;
  }
  return AlertTransition::kNone;
}

void AlertState::resume_firing(std::int64_t active_since_ns, std::int64_t fired_at_ns) {
  phase_ = AlertPhase::kFiring;
  active_since_ns_ = active_since_ns;
  fired_at_ns_ = fired_at_ns;
  resolved_at_ns_.reset();
  recovered_since_ns_.reset();
}

AlertTransition AlertState::fire(std::int64_t now_ns) {
  phase_ = AlertPhase::kFiring;
  fired_at_ns_ = now_ns;
  recovered_since_ns_.reset();
  return AlertTransition::kFiring;
}

AlertTransition AlertState::resolve(std::int64_t now_ns) {
  phase_ = AlertPhase::kResolved;
  resolved_at_ns_ = now_ns;
  recovered_since_ns_.reset();
  return AlertTransition::kResolved;
}

}  // namespace stallwatch::collector
