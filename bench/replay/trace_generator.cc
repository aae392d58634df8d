// SPDX-License-Identifier: MIT
// Writes a synthetic dftracer trace for the analyze benchmark: one file per
// rank in the newline-delimited dialect (integer "ph", "type" column, hex
// hhash), shaped like a DLIO/PyTorch training loop: per step a main-thread
// fetch (loop.iter) over dataset reads (reader + POSIX events), then compute,
// with epoch marks. Events are written in end order, as dftracer does.
//
// usage: replay_trace_gen DIR TOTAL_MB [RANKS]

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

struct Writer {
  std::FILE* out = nullptr;
  std::uint64_t bytes = 0;
  std::uint64_t id = 0;
  std::int64_t pid = 0;
  char line[1024];

  void complete(const char* name, const char* cat, int type, std::int64_t ts, std::int64_t dur,
                const char* extra) {
    const int n = std::snprintf(line, sizeof line,
                                "{\"id\":%" PRIu64
                                ",\"name\":\"%s\",\"cat\":\"%s\",\"type\":%d,\"pid\":%" PRId64
                                ",\"tid\":%" PRId64 ",\"ts\":%" PRId64 ",\"dur\":%" PRId64
                                ",\"ph\":1,\"args\":{\"hhash\":\"83f0c1d2e4a5b6c7\"%s}}\n",
                                ++id, name, cat, type, pid, pid, ts, dur, extra);
    std::fwrite(line, 1, static_cast<std::size_t>(n), out);
    bytes += static_cast<std::uint64_t>(n);
  }
  void mark(const char* name, std::int64_t ts) {
    const int n = std::snprintf(
        line, sizeof line,
        "{\"name\":\"CM\",\"cat\":\"dftracer\",\"type\":1,\"pid\":%" PRId64 ",\"tid\":%" PRId64
        ",\"ph\":4,\"args\":{\"hhash\":\"83f0c1d2e4a5b6c7\",\"name\":\"%s\",\"value\":\"%" PRId64
        "\"}}\n",
        pid, pid, name, ts);
    std::fwrite(line, 1, static_cast<std::size_t>(n), out);
    bytes += static_cast<std::uint64_t>(n);
  }
};

void write_rank(const std::string& path, int rank, std::uint64_t target_bytes) {
  Writer w;
  w.out = std::fopen(path.c_str(), "wb");
  if (w.out == nullptr) {
    std::perror(path.c_str());
    std::exit(1);
  }
  w.pid = 100000 + rank;
  std::mt19937_64 rng(42 + static_cast<std::uint64_t>(rank));
  std::uniform_int_distribution<std::int64_t> jitter(0, 400);
  std::int64_t t = 1'744'611'914'000'000 + rank * 1000;  // µs
  w.complete("start", "dftracer", 1, t, 0, ",\"ppid\":1");
  char extra[256];
  for (int epoch = 0; w.bytes < target_bytes; ++epoch) {
    w.mark("epoch.start", t);
    for (int step = 1; step <= 200 && w.bytes < target_bytes; ++step) {
      // Fetch: four samples, each opened, indexed and read in 1 MiB preads.
      const std::int64_t fetch_start = t;
      for (int sample = 0; sample < 4; ++sample) {
        const std::int64_t item_start = t;
        t += 20 + jitter(rng) / 20;
        const std::int64_t open_start = t;
        w.complete("open64", "POSIX", 3, t, 35, ",\"fhash\":\"1f2e3d4c5b6a7980\",\"ret\":7");
        t += 40;
        w.complete("HDF5Reader.open", "reader", 6, open_start, t - open_start, "");
        const std::int64_t sample_start = t;
        for (int chunk = 0; chunk < 8; ++chunk) {
          const std::int64_t dur = 900 + jitter(rng);
          std::snprintf(extra, sizeof extra,
                        ",\"fhash\":\"1f2e3d4c5b6a7980\",\"ret\":1048576,\"offset\":%d",
                        chunk * 1048576);
          w.complete("pread", "POSIX", 3, t, dur, extra);
          t += dur + 5;
        }
        w.complete("HDF5Reader.get_sample", "reader", 6, sample_start, t - sample_start,
                   ",\"image_idx\":\"3\"");
        w.complete("close", "POSIX", 3, t, 12, ",\"fhash\":\"1f2e3d4c5b6a7980\",\"ret\":0");
        t += 15;
        std::snprintf(extra, sizeof extra, ",\"step\":\"%d\",\"image_idx\":\"%d\"", step, sample);
        w.complete("TorchDataset.__getitem__", "data_loader", 6, item_start, t - item_start, extra);
      }
      std::snprintf(extra, sizeof extra, ",\"step\":\"%d\",\"epoch\":\"%d\"", step, epoch);
      w.complete("loop.iter", "data_loader", 6, fetch_start, t - fetch_start, extra);
      // Compute, overlapped at its start by a prefetch of the next file.
      const std::int64_t yield_start = t;
      w.complete("pread", "POSIX", 3, t + 10, 600,
                 ",\"fhash\":\"2f2e3d4c5b6a7980\",\"ret\":524288");
      const std::int64_t compute = 30'000 + jitter(rng) * 10;
      w.complete("TorchFramework.compute", "ai_framework", 6, t + 5, compute, extra);
      t += compute + 20;
      w.complete("loop.yield", "data_loader", 6, yield_start, t - yield_start, extra);
    }
    w.complete("PyTorchCheckpointing.save_state", "checkpoint", 6, t, 2500, "");
    t += 3000;
    w.mark("epoch.end", t);
  }
  w.complete("end", "dftracer", 1, t, 0, "");
  std::fclose(w.out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DIR TOTAL_MB [RANKS]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const double total_mb = std::atof(argv[2]);
  const int ranks = argc > 3 ? std::atoi(argv[3]) : 8;
  if (total_mb <= 0 || ranks <= 0) {
    std::fprintf(stderr, "%s: TOTAL_MB and RANKS must be positive\n", argv[0]);
    return 2;
  }
  const auto per_rank = static_cast<std::uint64_t>(total_mb * 1e6 / ranks);
  for (int r = 0; r < ranks; ++r) {
    const std::string path =
        dir + "/trace-" + std::to_string(r) + "-of-" + std::to_string(ranks) + ".pfw";
    write_rank(path, r, per_rank);
    std::printf("%s\n", path.c_str());
  }
  return 0;
}
