// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as the report frames a head receives from its
// nodes (docs/design.md, "Collector tree"). The input is cut before every
// "SWNR" (the frames' magic); each piece goes to RemoteRanks::accept() one
// second of the head's clock after the last, then the head's tick runs on
// it: merge_into() an empty snapshot of the head, then what the API serves
// from it (fuzz_serve.h). Seeds: tree_fuzz_seeds.h. Nothing may crash, leak,
// report undefined behaviour or run out of memory; on top, a piece that
// decode_report() refuses must be counted as refused.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine_config.h"
#include "fuzz_serve.h"
#include "tree/node_report.h"
#include "tree/remote_ranks.h"
#include "tree_fuzz_seeds.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stallwatch::collector;
  using fuzz::kWindowsNs;
  EngineConfig config;
  config.windows_ns = kWindowsNs;
  std::vector<std::int64_t> windows = kWindowsNs;
  windows.push_back(0);  // the totals
  RemoteRanks head(windows, 5'000'000'000, 30'000'000'000);

  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::int64_t now_ns = fuzz::kHeadStartNs;
  for (std::size_t begin = 0; begin < input.size();) {
    std::size_t end = input.find("SWNR", begin + 1);
    if (end == std::string_view::npos) end = input.size();
    const std::span<const std::uint8_t> frame(data + begin, end - begin);
    begin = end;

    NodeReport report;
    const bool decodes = decode_report(frame, report).empty();
    const std::uint64_t refused = head.stats().reports_rejected;
    head.accept(frame, now_ns);
    if (!decodes && head.stats().reports_rejected != refused + 1) std::abort();

    Snapshot snapshot;
    snapshot.now_ns = now_ns;
    snapshot.tick = static_cast<std::uint64_t>(now_ns / 1'000'000'000);
    snapshot.windows_ns = windows;
    snapshot.verdict_window_ns = kWindowsNs.front();
    head.merge_into(snapshot, now_ns, config);
    fuzz::serve_snapshot(std::make_shared<const Snapshot>(std::move(snapshot)), kWindowsNs);
    now_ns += 1'000'000'000;
  }
  return 0;
}
