// SPDX-License-Identifier: MIT
// The daemon's per-event path without the daemon: exactly the frames of
// bench_e2e_ingest (bench/e2e FrameTemplate: 8192 realistic training-loop
// events per frame, 100 ms of simulated time, 32 ranks), each one taken
// through stallwatchd's path (BatchDecoder::decode_prepared, in its two
// steps): validated with its header decoded by decode_header ("decode"), its
// events checked, decoded and prepared in one pass by prepare_events
// ("prepare"), applied with
// Engine::ingest, a tick every `--tick-every` frames (the daemon ticks every
// 50 ms; at 10 M events/s that is about 60 frames). Reports the thread CPU
// time per event of decode, prepare, ingest and tick separately and their
// sum, which is stallwatchd's cost per event (decode and prepare on its
// ingest-receive thread, ingest on ingest-apply, tick on the tick thread); a
// single-threaded loop like this one is what one core can absorb.
//
// Each repeat also runs the same frames without the preparer (a full
// BatchDecoder::decode; the engine classifies and gathers intervals itself),
// alternated with the prepared run, for the side-by-side ingest figure.
//
// The pipeline ceiling is what stallwatchd's two ingest threads could absorb
// with a core each: 1 / the slower of receive (decode + prepare) and the
// work under the engine's lock (ingest + tick).
//
// --unprepared 0 skips the runs without a preparer (for profiling the
// daemon's path alone); their figures then read 0.
//
// Several repeats, median reported. Prints figures, asserts nothing, ends
// with one JSON line.
//
//   bench_engine_frames [--ranks 32] [--events-per-frame 8192] [--rounds 100]
//                       [--tick-every 60] [--repeats 3] [--unprepared 1]

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "frame_template.h"
#include "ingest/batch_decoder.h"

namespace stallwatch::bench {
namespace {

constexpr std::int64_t kFrameSpanNs = 100'000'000;

struct Flags {
  int ranks = 32;
  std::size_t events_per_frame = 8192;
  int rounds = 100;  // frames per rank per repeat (bench_e2e_ingest: 125)
  int tick_every = 60;
  int repeats = 3;
  bool unprepared = true;  // also run the engine without a preparer, for comparison
};

bool parse_flags(int argc, char** argv, Flags& f) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (key == "--ranks") {
      f.ranks = static_cast<int>(value);
    } else if (key == "--events-per-frame") {
      f.events_per_frame = static_cast<std::size_t>(value);
    } else if (key == "--rounds") {
      f.rounds = static_cast<int>(value);
    } else if (key == "--tick-every") {
      f.tick_every = static_cast<int>(value);
    } else if (key == "--repeats") {
      f.repeats = static_cast<int>(value);
    } else if (key == "--unprepared") {
      f.unprepared = value != 0;
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && f.ranks > 0 && f.events_per_frame > 0 && f.rounds > 0 &&
         f.tick_every > 0 && f.repeats > 0;
}

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

struct Run {
  double decode_ns = 0;  // per event
  double prepare_ns = 0;
  double ingest_ns = 0;
  double tick_ns = 0;
  double wall_ns = 0;
  double total() const { return decode_ns + prepare_ns + ingest_ns + tick_ns; }
  // ns per event of the slower ingest thread: receive, or the engine's lock.
  double slowest_stage() const { return std::max(decode_ns + prepare_ns, ingest_ns + tick_ns); }
  // The pipeline ceiling in M events/s; 0 for a run not made (--unprepared 0).
  double ceiling_mps() const { return slowest_stage() > 0 ? 1e3 / slowest_stage() : 0; }
};

// One fresh engine fed `rounds` frames of every rank, round-robin like the
// senders' interleaved streams; the first round (new ranks, growing buffers)
// is not measured.
Run run_once(const Flags& f, bool prepare) {
  collector::NameTable names;
  collector::Engine engine(collector::EngineConfig{}, names);
  collector::BatchDecoder decoder(names);
  collector::BatchPreparer preparer = engine.make_preparer(nullptr);
  collector::DecodedBatch batch;
  collector::PreparedBatch prepared;
  std::vector<FrameTemplate> templates;
  const std::int64_t start = wall_now_ns() - 10'000'000'000;
  for (int r = 0; r < f.ranks; ++r) {
    templates.emplace_back(SimulatedRank{"frames", r, 100'000 + r * 10, "bench-host"},
                           f.events_per_frame, start, kFrameSpanNs);
  }
  double decode = 0;
  double prep = 0;
  double ingest = 0;
  double tick = 0;
  std::uint64_t events = 0;
  std::uint64_t frames = 0;
  const auto wall0 = std::chrono::steady_clock::now();
  for (int round = 0; round < f.rounds + 1; ++round) {
    const bool measured = round > 0;
    for (auto& t : templates) {
      if (round > 0) t.advance(kFrameSpanNs);
      // Prepared: the daemon's receive thread (header, then the events
      // decoded and prepared in one pass); unprepared: a full decode.
      const double t0 = thread_cpu_ns();
      const bool rejected = prepare ? decoder.decode_header(t.bytes(), batch).has_value()
                                    : decoder.decode(t.bytes(), batch).has_value();
      const double t1 = thread_cpu_ns();
      if (rejected || (prepare && decoder.prepare_events(preparer, batch, prepared))) {
        std::fprintf(stderr, "bench: a template frame was rejected\n");
        std::exit(1);
      }
      const double tp = thread_cpu_ns();
      engine.ingest(batch, t.sent_at_ns(), prepare ? &prepared : nullptr);
      const double t2 = thread_cpu_ns();
      if (!measured) continue;
      decode += t1 - t0;
      prep += tp - t1;
      ingest += t2 - tp;
      events += prepare ? prepared.event_count() : batch.events.size();
      if (++frames % static_cast<std::uint64_t>(f.tick_every) == 0) {
        const double t3 = thread_cpu_ns();
        auto snap = engine.tick(t.sent_at_ns());
        tick += thread_cpu_ns() - t3;
        if (snap->stats.events_processed == 0) std::exit(1);
      }
    }
  }
  const double wall =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count();
  const auto n = static_cast<double>(events);
  return Run{decode / n, prep / n, ingest / n, tick / n, wall / n};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace
}  // namespace stallwatch::bench

int main(int argc, char** argv) {
  using namespace stallwatch::bench;
  Flags f;
  if (!parse_flags(argc, argv, f)) {
    std::fprintf(stderr,
                 "usage: bench_engine_frames [--ranks N] [--events-per-frame N] [--rounds N] "
                 "[--tick-every N] [--repeats N] [--unprepared 0|1]\n");
    return 2;
  }
  std::printf(
      "decode + prepare + Engine::ingest of bench_e2e_ingest's frames: %d ranks x %d frames x "
      "%zu events, a tick every %d frames; thread CPU ns per event\n",
      f.ranks, f.rounds, f.events_per_frame, f.tick_every);
  std::vector<double> decode, prep, ingest, bare_ingest, tick, total, bare_total, wall, ceiling,
      bare_ceiling;
  for (int i = 0; i < f.repeats; ++i) {
    // Alternate which goes first, so a drift of the machine's speed is shared.
    Run r;
    Run b;
    if (!f.unprepared) {
      r = run_once(f, true);
    } else if (i % 2 == 0) {
      r = run_once(f, true);
      b = run_once(f, false);
    } else {
      b = run_once(f, false);
      r = run_once(f, true);
    }
    std::printf(
        "  repeat %d: decode %6.2f  prepare %6.2f  ingest %6.2f  tick %6.2f  total %6.2f  "
        "(wall %6.2f) | unprepared: ingest %6.2f  total %6.2f | pipeline ceiling M/s: %.1f, "
        "unprepared %.1f\n",
        i, r.decode_ns, r.prepare_ns, r.ingest_ns, r.tick_ns, r.total(), r.wall_ns, b.ingest_ns,
        b.total(), 1e3 / r.slowest_stage(), b.ceiling_mps());
    decode.push_back(r.decode_ns);
    prep.push_back(r.prepare_ns);
    ingest.push_back(r.ingest_ns);
    bare_ingest.push_back(b.ingest_ns);
    tick.push_back(r.tick_ns);
    total.push_back(r.total());
    bare_total.push_back(b.total());
    wall.push_back(r.wall_ns);
    ceiling.push_back(1e9 / r.slowest_stage());
    bare_ceiling.push_back(b.ceiling_mps() * 1e6);
  }
  const double t = median(total);
  std::printf(
      "{\"bench\":\"engine_frames\",\"ranks\":%d,\"events_per_frame\":%zu,"
      "\"decode_cpu_ns_per_event\":%.2f,\"prepare_cpu_ns_per_event\":%.2f,"
      "\"ingest_cpu_ns_per_event\":%.2f,\"unprepared_ingest_cpu_ns_per_event\":%.2f,"
      "\"tick_cpu_ns_per_event\":%.2f,\"total_cpu_ns_per_event\":%.2f,"
      "\"unprepared_total_cpu_ns_per_event\":%.2f,"
      "\"events_per_cpu_s\":%.0f,\"wall_ns_per_event\":%.2f,"
      "\"pipeline_ceiling_events_per_s\":%.0f,\"unprepared_pipeline_ceiling_events_per_s\":%.0f}\n",
      f.ranks, f.events_per_frame, median(decode), median(prep), median(ingest),
      median(bare_ingest), median(tick), t, median(bare_total), 1e9 / t, median(wall),
      median(ceiling), median(bare_ceiling));
  return 0;
}
