// SPDX-License-Identifier: MIT
#include "replay/replay_command.h"

#include <stallwatch/protocol.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "config/duration_option.h"
#include "engine/name_table.h"
#include "ingest/batch_encoder.h"
#include "journal_replay.h"
#include "push_sender.h"
#include "traces/batch_builder.h"
#include "traces/job_stream.h"
#include "traces/text_table.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {

namespace {

constexpr std::size_t kEventsPerBatch = 1024;
constexpr auto kHeartbeatEvery = std::chrono::milliseconds(250);
// Paced replay does not sit through idle stretches longer than this (trace
// time): the wait is skipped, timestamps are kept.
constexpr std::int64_t kMaxIdleGapNs = 300'000'000'000;

struct ReplayOptions {
  std::vector<std::string> files;
  double speed = 1.0;  // 0 = max
  std::string endpoint = wire::kDefaultTcpEndpoint;
  std::string job;
  std::int64_t timeout_ns = 10'000'000'000;
};

std::string default_job(const std::string& path) {
  std::string stem =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  for (char& c : stem) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) c = '-';
  }
  if (stem.size() > 48) stem.resize(48);
  return "replay-" + (stem.empty() ? std::string("trace") : stem);
}

// A --speed value: "max" (0), or a factor above 0, with an optional "x" ("2x").
std::optional<double> parse_speed(std::string_view text) {
  if (text == "max") return 0.0;
  if (!text.empty() && text.back() == 'x') text.remove_suffix(1);
  double speed = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), speed);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(speed) ||
      speed <= 0) {
    return std::nullopt;
  }
  return speed;
}

std::unique_ptr<CLI::App> replay_app(ReplayOptions& o) {
  auto app = std::make_unique<CLI::App>(
      "Send recorded traces or stallwatchd journals into a live stallwatchd.", "stallwatch replay");
  app->add_option("FILE", o.files,
                  "dftracer .pfw/.pfw.gz or PyTorch-profiler (Kineto) .json/.json.gz, or "
                  "stallwatchd journal segments (DIR/*.swj: jobs and ranks kept)")
      ->required();
  app->add_option_function<std::string>(
         "--speed", [&o](const std::string& v) { o.speed = *parse_speed(v); },
         "N times real time (default 1), or max: as fast as the collector takes it")
      ->type_name("N|max")
      ->check([](const std::string& v) -> std::string {
        return parse_speed(v) ? "" : "'" + v + "' is not a positive factor or 'max'";
      });
  app->add_option("--to", o.endpoint, "collector ingest endpoint (default tcp://127.0.0.1:5557)")
      ->type_name("ENDPOINT")
      ->check([](const std::string& v) { return v.empty() ? "needs an endpoint" : ""; });
  app->add_option("--job", o.job, "job id shown in the dashboards (default: replay-<first file>)")
      ->type_name("NAME")
      ->check([](const std::string& v) { return v.empty() ? "needs a name" : ""; });
  add_duration_option(*app, "--timeout", o.timeout_ns,
                      "give up when the collector takes nothing for this long (default 10s)");
  return app;
}

std::int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int run_replay(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  ReplayOptions options;
  const auto app = replay_app(options);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app->help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "stallwatch replay: " << e.what()
        << "\nRun `stallwatch replay --help` for the options.\n";
    return 2;
  }
  if (options.job.empty()) options.job = default_job(options.files.front());
  const auto is_journal = [](const std::string& f) {
    return f.size() > 4 && f.compare(f.size() - 4, 4, ".swj") == 0;
  };
  const auto journals = std::count_if(options.files.begin(), options.files.end(), is_journal);
  if (journals > 0) {
    if (journals != static_cast<std::ptrdiff_t>(options.files.size())) {
      err << "stallwatch replay: journal segments (.swj) cannot be mixed with traces\n";
      return 2;
    }
    return replay_journals({options.files, options.speed, options.endpoint,
                            static_cast<int>(std::min<std::int64_t>(
                                options.timeout_ns / 1'000'000, std::numeric_limits<int>::max()))},
                           out, err);
  }
  TracePlan plan;
  if (auto problem = plan_traces(options.files, plan); !problem.empty()) {
    err << "stallwatch replay: " << problem << "\n";
    return 1;
  }
  for (const std::string& note : plan.notes)
    err << "note: " << note << "\n";
  JobStream stream(plan);
  if (auto problem = stream.open(); !problem.empty()) {
    err << "stallwatch replay: " << problem << "\n";
    return 1;
  }
  const int timeout_ms = static_cast<int>(
      std::min<std::int64_t>(options.timeout_ns / 1'000'000, std::numeric_limits<int>::max()));
  std::string problem;
  auto sender = PushSender::connect(options.endpoint, timeout_ms, problem);
  if (!sender) {
    err << "stallwatch replay: " << problem << "\n";
    return 1;
  }

  // The trace's first start becomes "now"; durations are kept.
  std::int64_t trace_start = plan.first_ts_ns;
  const TraceEvent* event = nullptr;
  const TraceFileInfo* file = nullptr;
  const RankGroup* group = nullptr;
  bool have_event = stream.next(event, file, group);
  if (have_event) trace_start = std::min(trace_start, event->ts_ns);
  if (trace_start == std::numeric_limits<std::int64_t>::max()) trace_start = 0;
  const std::int64_t offset = unix_now_ns() - trace_start;

  NameTable names;
  BatchBuilder::Options builder_options;
  builder_options.job = options.job;
  builder_options.max_events = kEventsPerBatch;
  builder_options.time_offset_ns = offset;
  builder_options.max_name_bytes = wire::kMaxStringBytes;
  BatchBuilder builder(names, builder_options);
  BatchEncoder encoder;
  std::uint64_t unencodable = 0;
  std::string send_error;
  const BatchBuilder::Emit emit = [&](const DecodedBatch& batch) {
    if (!send_error.empty()) return;
    const EncodedFrame frame = encoder.encode(batch, names);
    if (!frame.ok()) {
      if (++unencodable <= 5) err << "stallwatch replay: batch not sent: " << frame.error << "\n";
      return;
    }
    send_error = sender->send(frame.bytes);
  };

  out << "stallwatch replay: " << options.files.size() << " file(s), " << plan.ranks.size()
      << " rank(s) as job " << options.job << " to " << options.endpoint << " at "
      << (options.speed == 0 ? std::string("max speed") : fixed(options.speed, 2) + "x") << "\n";
  out.flush();
  const auto wall_start = std::chrono::steady_clock::now();
  auto last_beat = wall_start;
  std::uint64_t events = 0;
  std::uint64_t skipped_gaps = 0;
  std::int64_t skipped_ns = 0;  // trace time fast-forwarded
  std::int64_t latest_end = trace_start;
  while (have_event && send_error.empty()) {
    if (options.speed > 0) {
      if (event->end_ns() - latest_end > kMaxIdleGapNs) {
        skipped_ns += event->end_ns() - latest_end;
        ++skipped_gaps;
      }
      latest_end = std::max(latest_end, event->end_ns());
      const auto due =
          wall_start +
          std::chrono::nanoseconds(static_cast<std::int64_t>(
              static_cast<double>(event->end_ns() - trace_start - skipped_ns) / options.speed));
      for (auto now = std::chrono::steady_clock::now(); now < due && send_error.empty();
           now = std::chrono::steady_clock::now()) {
        if (now - last_beat >= kHeartbeatEvery) {
          const auto elapsed =
              std::chrono::duration_cast<std::chrono::nanoseconds>(now - wall_start).count();
          builder.flush_all(
              trace_start + skipped_ns + offset +
                  static_cast<std::int64_t>(static_cast<double>(elapsed) * options.speed),
              emit);
          last_beat = now;
        }
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
            due - now, std::chrono::milliseconds(50)));
      }
    }
    builder.add(*group, *file, *event, emit);
    ++events;
    have_event = stream.next(event, file, group);
  }
  if (!stream.error().empty()) {
    err << "stallwatch replay: " << stream.error() << "\n";
    sender->close(1000);
    return 1;
  }
  for (const RankGroup& rank : plan.ranks)
    builder.finish_rank(rank, emit);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // Waits for the collector to read it all: a frame only queued can still be lost.
  const std::string undelivered = sender->close(send_error.empty() ? timeout_ms : 0);
  if (!undelivered.empty()) err << "stallwatch replay: " << undelivered << "\n";

  std::uint64_t malformed = 0;
  for (const ReadStats& s : stream.stats()) {
    malformed += s.malformed;
    for (const ReadProblem& p : s.problems)
      err << "warning: malformed record: " << to_string(p) << "\n";
  }
  if (!send_error.empty()) {
    err << "stallwatch replay: " << send_error << "\n";
    out << "stallwatch replay: stopped after " << sender->frames() << " batches (" << events
        << " events read)\n";
    return 1;
  }
  out << "stallwatch replay: sent " << builder.events() << " events in " << sender->frames()
      << " batches (" << fixed(static_cast<double>(sender->bytes()) / 1e6, 2) << " MB) in "
      << fixed(seconds, 2) << " s, "
      << fixed(seconds > 0 ? static_cast<double>(builder.events()) / seconds : 0.0, 0)
      << " events/s; " << malformed << " malformed records skipped";
  if (unencodable > 0) out << "; " << unencodable << " batches could not be encoded";
  if (skipped_gaps > 0) {
    out << "; " << skipped_gaps << " idle stretch(es) over " << kMaxIdleGapNs / 1'000'000'000
        << " s fast-forwarded";
  }
  out << "\n";
  return unencodable > 0 || !undelivered.empty() ? 1 : 0;
}

}  // namespace stallwatch::collector
