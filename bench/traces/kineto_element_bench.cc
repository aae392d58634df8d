// SPDX-License-Identifier: MIT
// Parsing Kineto traceEvents elements: simdjson's On Demand parser (the
// reader's path for any element) next to the hand-written parser the reader
// tries first (parse_kineto_element_fast), over every element of the traces,
// held in memory after inflating and splitting. The two are interleaved run
// after run, one thread; figures are medians of ns per element and MB/s of
// element text. Every element the hand-written parser takes must come out
// the same from both (checked before timing); the ones it leaves to simdjson
// are counted.
//
// usage: bench_kineto_element [--runs N] FILE...   (default: the Kineto traces
// of tests/data); ends with one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_args.h"
#include "input_file.h"
#include "json_object_scanner.h"
#include "kineto_element.h"
#include "kineto_element_equal.h"

namespace {

using stallwatch::collector::InputFile;
using stallwatch::collector::JsonObjectScanner;
using stallwatch::collector::KinetoElement;
using stallwatch::collector::TraceEvent;

// Every element, each copied out with the scanner's padding after it.
struct Elements {
  std::vector<std::string> texts;  // element + kPadding spaces
  std::uint64_t bytes = 0;
};

bool load(const std::string& path, Elements& out) {
  std::string error;
  auto file = InputFile::open(path, error);
  if (!file) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return false;
  }
  JsonObjectScanner scanner(*file, "traceEvents");
  for (;;) {
    switch (scanner.next()) {
      case JsonObjectScanner::Item::kElement: {
        std::string text(scanner.text());
        out.bytes += text.size();
        text.append(JsonObjectScanner::kPadding, ' ');
        out.texts.push_back(std::move(text));
        break;
      }
      case JsonObjectScanner::Item::kMember:
        break;
      case JsonObjectScanner::Item::kEnd:
        return true;
      case JsonObjectScanner::Item::kError:
        std::fprintf(stderr, "%s: %s\n", path.c_str(), scanner.error().c_str());
        return false;
    }
  }
}

std::string_view view(const std::string& padded) {
  return {padded.data(), padded.size() - JsonObjectScanner::kPadding};
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 9;
  const std::string data = SW_TEST_DATA;
  std::vector<std::string> files = {data + "/kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                    data + "/kineto/two-rank/sampled_rank-0.json.gz",
                                    data + "/kineto/two-rank/sampled_rank-1.json.gz"};
  stallwatch::bench::parse_bench_args(argc, argv, runs, files);
  nlohmann::json doc{{"runs", runs}};
  std::printf("%-48s %9s %9s %11s %11s %8s %9s\n", "file", "elements", "MB", "simdjson ns",
              "by hand ns", "speedup", "fallback");
  for (const auto& path : files) {
    Elements elements;
    if (!load(path, elements)) return 1;
    simdjson::ondemand::parser parser;
    std::size_t fallbacks = 0;
    for (const std::string& padded : elements.texts) {
      TraceEvent a, b;
      KinetoElement ea, eb;
      std::string problem;
      const bool fast = stallwatch::collector::parse_kineto_element_fast(view(padded), a, ea);
      const bool full =
          stallwatch::collector::parse_kineto_element(parser, view(padded), b, eb, problem);
      if (!fast) {
        ++fallbacks;
      } else if (!full || !stallwatch::collector::same_kineto_fields(a, ea, b, eb)) {
        std::fprintf(stderr, "%s: the parsers differ on %s\n", path.c_str(),
                     std::string(view(padded)).c_str());
        return 1;
      }
    }
    // Work the compiler cannot drop: every parsed timestamp is summed.
    std::int64_t sink = 0;
    std::vector<double> simdjson_s, fast_s;
    for (int run = 0; run < runs; ++run) {
      auto time = [&](auto&& f) {
        const auto start = std::chrono::steady_clock::now();
        for (const std::string& padded : elements.texts)
          f(view(padded));
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      };
      simdjson_s.push_back(time([&](std::string_view text) {
        TraceEvent event;
        KinetoElement element;
        std::string problem;
        stallwatch::collector::parse_kineto_element(parser, text, event, element, problem);
        sink += event.ts_ns;
      }));
      fast_s.push_back(time([&](std::string_view text) {
        TraceEvent event;
        KinetoElement element;
        if (!stallwatch::collector::parse_kineto_element_fast(text, event, element)) {
          std::string problem;
          event = TraceEvent{};
          element = KinetoElement{};
          stallwatch::collector::parse_kineto_element(parser, text, event, element, problem);
        }
        sink += event.ts_ns;
      }));
    }
    const double n = static_cast<double>(elements.texts.size());
    const double mb = static_cast<double>(elements.bytes) / 1e6;
    const double simdjson_ns = stallwatch::bench::median(simdjson_s) / n * 1e9;
    const double fast_ns = stallwatch::bench::median(fast_s) / n * 1e9;
    const std::string name = path.substr(path.rfind('/') + 1);
    std::printf("%-48s %9zu %9.2f %11.1f %11.1f %7.2fx %9zu\n", name.c_str(), elements.texts.size(),
                mb, simdjson_ns, fast_ns, simdjson_ns / fast_ns, fallbacks);
    doc["files"][name] = {{"elements", elements.texts.size()},
                          {"element_bytes", elements.bytes},
                          {"simdjson_ns_per_element", simdjson_ns},
                          {"by_hand_ns_per_element", fast_ns},
                          {"simdjson_mb_s", mb / stallwatch::bench::median(simdjson_s)},
                          {"by_hand_mb_s", mb / stallwatch::bench::median(fast_s)},
                          {"speedup", simdjson_ns / fast_ns},
                          {"left_to_simdjson", fallbacks},
                          {"checksum", sink}};
  }
  std::printf("%s\n", doc.dump().c_str());
  return 0;
}
