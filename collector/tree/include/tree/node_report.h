// SPDX-License-Identifier: MIT
#pragma once

// What a node daemon sends its head every tick (docs/design.md, "Collector
// tree"): its ranks' snapshots as the node's engine made them (rows of every
// window, counters, state, verdict, device source, processes, GPU counters,
// finalized totals, the COMM calls its peer matching took, so that the head
// matches them across nodes: each rank's as a CommCallsDelta against what the
// node sent before), with the node's name, its API address (for timelines)
// and its windows. Raw events never travel. A node with many ranks sends
// several reports per tick, each self-contained and under kMaxReportBytes.
//
// The encoding is a compact binary of the snapshot structs themselves,
// written and read by one field list per struct (src/snapshot_fields.h): a
// field added to a snapshot struct travels once it is named there, on both
// sides at once. Reports carry kReportVersion; a head reads those from
// kOldestReportVersion on (an older node's ranks lack the fields added
// since: version 5 added top_files, 6 top_kernels) and refuses any other.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/snapshot.h"
#include "tree/comm_calls_delta.h"

namespace stallwatch::collector {

inline constexpr std::uint16_t kReportVersion = 6;
inline constexpr std::uint16_t kOldestReportVersion = 4;
inline constexpr std::size_t kMaxReportBytes = std::size_t{1} << 20;

struct NodeReport {
  std::string node;          // the node's name (its [upstream] node, else its host name)
  std::string http_address;  // the node's API base URL ("https://host:port"); empty: no timelines
  std::uint64_t tick = 0;    // the node's tick number
  std::int64_t now_ns = 0;   // the node's clock at that tick
  std::vector<std::int64_t> windows_ns;  // Snapshot::windows_ns of the node
  std::vector<RankSnapshot> ranks;       // RankSnapshot::job set on each
  // Per rank (same order), its comm_calls as sent; a rank's comm_calls are
  // set from it when it is whole (base 0), else left for the head to apply.
  std::vector<CommCallsDelta> calls;
};

// One or more frames, each at most kMaxReportBytes (a single rank larger than
// that gets a frame of its own), that together carry every rank of `snapshot`.
// Every frame repeats the header fields. A snapshot without ranks gives one
// frame without ranks (a heartbeat). The ranks' calls go whole, or, with
// `sent`, as SentCommCalls::next() gives them (the caller then calls
// sent->end_tick(), or sent->clear() when a frame is not sent). `version`
// (kOldestReportVersion to kReportVersion) writes what a node of that
// version sent, for tests.
std::vector<std::vector<std::uint8_t>> encode_reports(const Snapshot& snapshot,
                                                      const std::string& node,
                                                      const std::string& http_address,
                                                      SentCommCalls* sent = nullptr,
                                                      std::uint16_t version = kReportVersion);

// Decodes one frame; returns "" or why it was refused (truncated, another
// version, an out-of-range enumeration value).
std::string decode_report(std::span<const std::uint8_t> frame, NodeReport& out);

}  // namespace stallwatch::collector
