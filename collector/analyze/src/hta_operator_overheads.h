// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hta_trace.h"

namespace stallwatch::collector {

// Mean and linear percentiles of one overhead over an operator's calls, µs.
struct HtaOverhead {
  std::size_t count = 0;
  double mean_us = 0;
  double p50_us = 0;
  double p95_us = 0;
};

// One top-level host operator name of one rank, attributed as in the DLRM
// performance study: its calls' host runtime, the device runtime of the
// kernels launched under it (child operators included, joined by
// correlation id), and its CPU overheads:
//  T1 — the gap from the previous top-level operator's end on the same
//       thread to this call's start;
//  T2 — from the call's start to the start of its first launch;
//  T3 — from the end of its last launch to the call's end;
//  T5 — between the end of one launch and the start of the next inside it;
// and its device start delay: from the call's start to the start of the first
// device activity (kernel, memcpy, memset) it launched.
// A call without launches has no T2, T3 or T5; one whose launches reached no
// device activity in the trace has no start delay.
struct HtaOperatorStats {
  std::int64_t rank = 0;
  std::string name;
  std::uint64_t calls = 0;
  std::int64_t host_runtime_us = 0;
  std::int64_t device_runtime_us = 0;
  HtaOverhead t1;
  HtaOverhead t2;
  HtaOverhead t3;
  HtaOverhead t5;
  HtaOverhead device_start_delay;
  // Each call's Kineto External id (record-function id), -1 when absent, in
  // call order; and, once an Execution Trace is joined (join_execution_trace),
  // the ET node ids of the calls that found theirs and the distinct input
  // shapes and types they were called with, first seen first.
  std::vector<std::int64_t> call_ids;
  std::vector<std::int64_t> et_nodes;
  std::vector<std::string> input_shapes;
  std::vector<std::string> input_types;
};

// T4: the launch calls themselves (their durations), per launch name.
struct HtaLaunchOverhead {
  std::int64_t rank = 0;
  std::string name;
  HtaOverhead t4;
};

struct HtaOperatorAttribution {
  std::vector<HtaOperatorStats> operators;  // by rank, then host runtime descending
  std::vector<HtaLaunchOverhead> launches;  // by rank, then name
};

// Top-level operators are the host operators (cat "cpu_op") not inside
// another one of their thread; launches belong to the top-level operator of
// their thread whose span holds their start. Data loading (operators named
// "enumerate(DataLoader)...") is left out of the table: its time counts in no
// operator's host runtime, and it still ends the gap before the next call.
HtaOperatorAttribution hta_operator_attribution(const HtaTrace& trace);

}  // namespace stallwatch::collector
