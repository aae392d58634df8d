// SPDX-License-Identifier: MIT
// Writes the seed corpus of validator_fuzz: valid frames from BatchEncoder,
// small enough for fast fuzzing, covering every event kind, flags, names and
// source fields. Usage: ingest_fuzz_seeds DIR (created if missing).

#include <bit>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"
#include "ingest/batch_encoder.h"

namespace {

using stallwatch::DeviceSource;
using stallwatch::ProcessRole;
using stallwatch::collector::BatchEncoder;
using stallwatch::collector::DecodedBatch;
using stallwatch::collector::Event;
using stallwatch::collector::EventKind;
using stallwatch::collector::kEventValueIsDouble;
using stallwatch::collector::NameId;
using stallwatch::collector::NameTable;

constexpr std::int64_t kSentAtNs = 1'700'000'000'000'000'000;

DecodedBatch make_batch(NameTable& names, std::size_t event_count, std::uint64_t seq) {
  DecodedBatch batch;
  batch.source = {"seed-job",
                  1,
                  "seed-host",
                  100,
                  1,
                  "0.1.0",
                  kSentAtNs - 1'000'000'000,
                  seq % 2 == 0 ? ProcessRole::kMain : ProcessRole::kWorker,
                  static_cast<DeviceSource>(seq % 4)};
  batch.seq = seq;
  batch.sent_at_ns = kSentAtNs;
  batch.dropped_since_last = seq * 3;
  batch.final = seq % 3 == 0;
  const NameId cats[] = {names.intern("compute"), names.intern("dataloader"), names.intern("gpu"),
                         names.intern("POSIX"), names.intern("pipeline")};
  const NameId event_names[] = {names.intern("forward"),     names.intern("fetch"),
                                names.intern("kernel"),      names.intern("read"),
                                names.intern("epoch.start"), names.intern("batch_size")};
  for (std::size_t i = 0; i < event_count; ++i) {
    const auto kind = static_cast<EventKind>(i % 5);
    Event event;
    event.ts_ns = kSentAtNs - 1'000'000 * static_cast<std::int64_t>(event_count - i);
    event.dur_ns = kind == EventKind::kComplete ? 500'000 : 0;
    event.value = kind == EventKind::kCounter ? std::bit_cast<std::int64_t>(32.5)
                                              : static_cast<std::int64_t>(i);
    event.flags = kind == EventKind::kCounter ? kEventValueIsDouble : 0;
    event.region_id = static_cast<std::uint32_t>(i / 2);
    event.tid = 1000 + static_cast<std::uint32_t>(i % 3);
    event.cat = cats[i % 5];
    event.name = event_names[i % 6];
    event.kind = kind;
    batch.events.push_back(event);
  }
  return batch;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir(argv[1]);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    std::fprintf(stderr, "%s: %s\n", argv[1], error.message().c_str());
    return 1;
  }
  NameTable names;
  BatchEncoder encoder;
  const std::size_t sizes[] = {0, 1, 2, 5, 10, 32, 100};
  std::uint64_t seq = 0;
  for (std::size_t size : sizes) {
    const auto frame = encoder.encode(make_batch(names, size, seq), names);
    if (!frame.ok()) {
      std::fprintf(stderr, "cannot encode a seed: %s\n", frame.error.c_str());
      return 1;
    }
    const auto path = dir / ("seed-" + std::to_string(seq) + ".swb");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(frame.bytes.data()),
              static_cast<std::streamsize>(frame.bytes.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    ++seq;
  }
  std::printf("wrote %llu seeds to %s\n", static_cast<unsigned long long>(seq), argv[1]);
  return 0;
}
