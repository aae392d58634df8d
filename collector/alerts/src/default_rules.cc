// SPDX-License-Identifier: MIT
#include "default_rules.h"

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

}  // namespace

std::vector<AlertRule> default_alert_rules() {
  AlertRule starved;
  starved.name = "DataStarved";
  starved.metric = "data_stall_ratio";
  starved.window_ns = 60 * kSecond;
  starved.threshold = 0.3;
  starved.clear = 0.25;
  starved.for_ns = 30 * kSecond;
  starved.severity = "warning";
  starved.annotations = {
      {"summary", "Rank {rank} of job {job} is starved for data"},
      {"description",
       "The device waited for input {value} of the last {window} (threshold {threshold}); "
       "verdict: {verdict}."}};
  starved.origin = "default rule DataStarved";

  AlertRule idle;
  idle.name = "DeviceIdle";
  idle.metric = "device_idle_ratio";
  idle.window_ns = 60 * kSecond;
  idle.threshold = 0.5;
  idle.clear = 0.45;
  idle.for_ns = 120 * kSecond;
  idle.severity = "warning";
  idle.annotations = {{"summary", "The device of rank {rank} of job {job} is mostly idle"},
                      {"description",
                       "The device was idle {value} of the last {window} (threshold {threshold}); "
                       "verdict: {verdict}."}};
  idle.origin = "default rule DeviceIdle";

  AlertRule silent;
  silent.name = "RankSilent";
  silent.metric = std::string(kSilentSecondsMetric);
  silent.window_ns = 0;
  silent.threshold = 30;
  silent.for_ns = 0;
  silent.severity = "critical";
  silent.annotations = {
      {"summary", "Rank {rank} of job {job} stopped reporting"},
      {"description",
       "No data from rank {rank} for {value} s although it has not finished: the process may "
       "be hung, dead or cut off from the collector."}};
  silent.origin = "default rule RankSilent";

  AlertRule held;
  held.name = "JobHeldBack";
  held.metric = std::string(kStragglerCostMetric);
  held.scope = AlertScope::kJob;
  held.window_ns = 60 * kSecond;
  held.threshold = 0.2;
  held.clear = 0.15;
  held.for_ns = 60 * kSecond;
  held.severity = "warning";
  held.annotations = {
      {"summary", "Job {job} is held back by some of its ranks"},
      {"description",
       "The other ranks waited for the slowest {value} of the last {window} (threshold "
       "{threshold}); the job detail's held_back names them and their verdict."}};
  held.origin = "default rule JobHeldBack";

  return {starved, idle, silent, held};
}

}  // namespace stallwatch::collector
