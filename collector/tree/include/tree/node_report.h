// SPDX-License-Identifier: MIT
#pragma once

// What a node daemon sends its head every tick (docs/design.md, "Collector
// tree"): its ranks' snapshots as the node's engine made them (rows of every
// window, counters, state, verdict, device source, processes, GPU counters,
// finalized totals, the COMM calls its peer matching took, so that the head
// matches them across nodes), with the node's name, its API address (for timelines)
// and its windows. Raw events never travel. A node with many ranks sends
// several reports per tick, each self-contained and under kMaxReportBytes.
//
// The encoding is a compact binary of the snapshot structs themselves,
// written and read by one field list per struct (src/snapshot_fields.h): a
// field added to a snapshot struct travels once it is named there, on both
// sides at once. Reports carry kReportVersion; a head refuses any other.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/snapshot.h"

namespace stallwatch::collector {

inline constexpr std::uint16_t kReportVersion = 4;
inline constexpr std::size_t kMaxReportBytes = std::size_t{1} << 20;

struct NodeReport {
  std::string node;          // the node's name (its [upstream] node, else its host name)
  std::string http_address;  // the node's API base URL ("https://host:port"); empty: no timelines
  std::uint64_t tick = 0;    // the node's tick number
  std::int64_t now_ns = 0;   // the node's clock at that tick
  std::vector<std::int64_t> windows_ns;  // Snapshot::windows_ns of the node
  std::vector<RankSnapshot> ranks;       // RankSnapshot::job set on each
};

// One or more frames, each at most kMaxReportBytes (a single rank larger than
// that gets a frame of its own), that together carry every rank of `snapshot`.
// Every frame repeats the header fields. A snapshot without ranks gives one
// frame without ranks (a heartbeat).
std::vector<std::vector<std::uint8_t>> encode_reports(const Snapshot& snapshot,
                                                      const std::string& node,
                                                      const std::string& http_address);

// Decodes one frame; returns "" or why it was refused (truncated, another
// version, an out-of-range enumeration value).
std::string decode_report(std::span<const std::uint8_t> frame, NodeReport& out);

}  // namespace stallwatch::collector
