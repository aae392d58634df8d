// SPDX-License-Identifier: MIT
#include "journal_replay.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"
#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "ingest/journal_reader.h"
#include "push_sender.h"
#include "traces/text_table.h"

namespace stallwatch::collector {
namespace {

std::int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The shift of a replay, down to whole seconds: a daemon's windows are sums of
// cells on its resolution grid (1 s, or a fraction of a second that divides
// it), so times moved by whole seconds fall in the same cells as they did live
// and every window equals the live one, not just the long ones.
std::int64_t whole_seconds(std::int64_t ns) {
  constexpr std::int64_t kSecond = 1'000'000'000;
  return ns >= 0 ? ns / kSecond * kSecond : -((-ns + kSecond - 1) / kSecond) * kSecond;
}

void shift_times(DecodedBatch& batch, std::int64_t offset) {
  batch.sent_at_ns += offset;
  if (batch.source.start_ns != 0) batch.source.start_ns += offset;
  for (Event& e : batch.events)
    e.ts_ns += offset;
}

}  // namespace

int replay_journals(const JournalReplay& options, std::ostream& out, std::ostream& err) {
  std::string problem;
  auto sender = PushSender::connect(options.endpoint, options.timeout_ms, problem);
  if (!sender) {
    err << "stallwatch replay: " << problem << "\n";
    return 1;
  }
  out << "stallwatch replay: " << options.files.size() << " journal file(s) to " << options.endpoint
      << " at " << (options.speed == 0 ? std::string("max speed") : fixed(options.speed, 2) + "x")
      << "\n";
  out.flush();

  // At max speed the last record is received "now", as the live daemon saw
  // the run at its end; paced, the first one is, and the rest follow in time.
  std::int64_t last_recv = std::numeric_limits<std::int64_t>::min();
  if (options.speed == 0) {
    for (const std::string& path : options.files) {
      read_journal_segment(path, [&](std::span<const std::uint8_t>, std::int64_t recv_ns) {
        last_recv = std::max(last_recv, recv_ns);
      });
    }
  }
  NameTable names;
  BatchDecoder decoder(names);
  BatchEncoder encoder;
  DecodedBatch batch;
  const auto wall_start = std::chrono::steady_clock::now();
  std::int64_t first_recv = std::numeric_limits<std::int64_t>::min();
  std::int64_t offset = 0;
  std::uint64_t events = 0;
  std::uint64_t invalid = 0;
  std::uint64_t unencodable = 0;
  std::uint64_t bad_records = 0;
  std::string send_error;
  bool unreadable = false;
  for (const std::string& path : options.files) {
    const auto read = read_journal_segment(path, [&](std::span<const std::uint8_t> frame,
                                                     std::int64_t recv_ns) {
      if (!send_error.empty()) return;
      if (auto error = decoder.decode(frame, batch)) {
        if (++invalid <= 5) err << "warning: " << path << ": invalid batch skipped\n";
        return;
      }
      if (first_recv == std::numeric_limits<std::int64_t>::min()) {
        first_recv = recv_ns;
        offset = whole_seconds(unix_now_ns() - (options.speed == 0 ? last_recv : recv_ns));
      }
      if (options.speed > 0) {
        const auto due =
            wall_start + std::chrono::nanoseconds(static_cast<std::int64_t>(
                             static_cast<double>(std::max<std::int64_t>(0, recv_ns - first_recv)) /
                             options.speed));
        std::this_thread::sleep_until(due);
      }
      shift_times(batch, offset);
      const EncodedFrame encoded = encoder.encode(batch, names);
      if (!encoded.ok()) {
        if (++unencodable <= 5)
          err << "stallwatch replay: batch not sent: " << encoded.error << "\n";
        return;
      }
      send_error = sender->send(encoded.bytes);
      if (send_error.empty()) events += batch.events.size();
    });
    if (!read.error.empty()) {
      err << "stallwatch replay: " << read.error << "\n";
      unreadable = true;
    }
    for (const JournalProblem& p : read.problems) {
      err << "warning: " << describe(path, p) << "\n";
    }
    bad_records += read.problems.size();
    if (!send_error.empty()) break;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // Waits for the collector to read it all: a frame only queued can still be lost.
  const std::string undelivered = sender->close(send_error.empty() ? options.timeout_ms : 0);
  if (!undelivered.empty()) err << "stallwatch replay: " << undelivered << "\n";
  if (!send_error.empty()) {
    err << "stallwatch replay: " << send_error << "\n";
    out << "stallwatch replay: stopped after " << sender->frames() << " batches\n";
    return 1;
  }
  out << "stallwatch replay: sent " << events << " events in " << sender->frames() << " batches ("
      << fixed(static_cast<double>(sender->bytes()) / 1e6, 2) << " MB) in " << fixed(seconds, 2)
      << " s; " << bad_records << " corrupt or truncated journal records skipped, " << invalid
      << " invalid batches skipped";
  if (unencodable > 0) out << "; " << unencodable << " batches could not be encoded";
  out << "\n";
  return unreadable || unencodable > 0 || !undelivered.empty() ? 1 : 0;
}

}  // namespace stallwatch::collector
