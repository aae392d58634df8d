// SPDX-License-Identifier: MIT
// Inflating gzip traces: zlib's streaming inflate (what the trace readers used
// before) next to ISA-L's igzip streaming inflate (what they use now), each
// over the compressed bytes held in memory, and the readers' own InputFile
// (ISA-L, from the page cache) as a check of the product path. The three are
// interleaved run after run; figures are medians of inflated MB/s, one thread.
// Both inflaters check the gzip CRC-32 and handle concatenated members, and
// each run's output must be byte for byte the same size and checksum.
//
// usage: bench_inflate [--runs N] FILE.gz...   (default: the gzip traces of
// tests/data); ends with one JSON line.
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_args.h"
#include "input_file.h"

namespace {

constexpr std::size_t kOutChunk = 256u << 10;  // what the Kineto scanner asks for

struct Result {
  std::uint64_t bytes = 0;
  std::uint32_t crc = 0;  // crc32 of the output, to compare the two
};

void account(Result& r, const unsigned char* p, std::size_t n) {
  r.bytes += n;
  r.crc = static_cast<std::uint32_t>(crc32(r.crc, p, static_cast<uInt>(n)));
}

Result inflate_zlib(const std::string& gz, bool checksum) {
  Result r;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) std::abort();
  std::vector<unsigned char> out(kOutChunk);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  for (;;) {
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (checksum)
      account(r, out.data(), out.size() - z.avail_out);
    else
      r.bytes += out.size() - z.avail_out;
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);
      continue;
    }
    if (rc != Z_OK) {
      std::fprintf(stderr, "zlib: %s\n", z.msg ? z.msg : "inflate failed");
      std::exit(1);
    }
  }
  inflateEnd(&z);
  return r;
}

Result inflate_isal(const std::string& gz, bool checksum) {
  Result r;
  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_GZIP;
  std::vector<unsigned char> out(kOutChunk);
  state->next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(gz.data()));
  state->avail_in = static_cast<std::uint32_t>(gz.size());
  for (;;) {
    state->next_out = out.data();
    state->avail_out = static_cast<std::uint32_t>(out.size());
    const int rc = isal_inflate(state.get());
    if (rc != ISAL_DECOMP_OK) {
      std::fprintf(stderr, "isa-l: inflate failed (%d)\n", rc);
      std::exit(1);
    }
    if (checksum)
      account(r, out.data(), out.size() - state->avail_out);
    else
      r.bytes += out.size() - state->avail_out;
    if (state->block_state == ISAL_BLOCK_FINISH) {
      if (state->avail_in == 0) break;
      isal_inflate_reset(state.get());
      state->crc_flag = ISAL_GZIP;
    }
  }
  return r;
}

Result inflate_input_file(const std::string& path, bool checksum) {
  Result r;
  std::string error;
  auto file = stallwatch::collector::InputFile::open(path, error);
  if (!file) {
    std::fprintf(stderr, "%s\n", error.c_str());
    std::exit(1);
  }
  std::vector<char> out(kOutChunk);
  for (;;) {
    const std::ptrdiff_t n = file->read(out.data(), out.size());
    if (n < 0) {
      std::fprintf(stderr, "%s\n", file->error().c_str());
      std::exit(1);
    }
    if (n == 0) break;
    if (checksum)
      account(r, reinterpret_cast<unsigned char*>(out.data()), static_cast<std::size_t>(n));
    else
      r.bytes += static_cast<std::uint64_t>(n);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 9;
  const std::string data = SW_TEST_DATA;
  std::vector<std::string> files = {data + "/kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                    data + "/dftracer-dlio/trace-0-of-8.pfw.gz"};
  stallwatch::bench::parse_bench_args(argc, argv, runs, files);
  nlohmann::json doc{{"runs", runs}, {"out_chunk_kib", kOutChunk >> 10}};
  std::printf("%-48s %10s %10s %10s %10s %8s\n", "file", "gz MB", "out MB", "zlib MB/s",
              "isa-l MB/s", "speedup");
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string gz{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (gz.size() < 2) {
      std::fprintf(stderr, "%s: cannot read or empty\n", path.c_str());
      return 1;
    }
    const Result want = inflate_zlib(gz, true);
    if (const Result got = inflate_isal(gz, true); got.bytes != want.bytes || got.crc != want.crc) {
      std::fprintf(stderr, "%s: ISA-L's output differs from zlib's\n", path.c_str());
      return 1;
    }
    if (const Result got = inflate_input_file(path, true);
        got.bytes != want.bytes || got.crc != want.crc) {
      std::fprintf(stderr, "%s: InputFile's output differs from zlib's\n", path.c_str());
      return 1;
    }
    std::vector<double> zlib_s, isal_s, file_s;
    for (int run = 0; run < runs; ++run) {
      auto time = [&](auto&& f) {
        const auto start = std::chrono::steady_clock::now();
        f();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      };
      zlib_s.push_back(time([&] { inflate_zlib(gz, false); }));
      isal_s.push_back(time([&] { inflate_isal(gz, false); }));
      file_s.push_back(time([&] { inflate_input_file(path, false); }));
    }
    const double mb = static_cast<double>(want.bytes) / 1e6;
    const double zlib_mbps = mb / stallwatch::bench::median(zlib_s);
    const double isal_mbps = mb / stallwatch::bench::median(isal_s);
    const double file_mbps = mb / stallwatch::bench::median(file_s);
    const std::string name = path.substr(path.rfind('/') + 1);
    std::printf("%-48s %10.2f %10.2f %10.1f %10.1f %7.2fx\n", name.c_str(),
                static_cast<double>(gz.size()) / 1e6, mb, zlib_mbps, isal_mbps,
                isal_mbps / zlib_mbps);
    doc["files"][name] = {{"gz_bytes", gz.size()},        {"inflated_bytes", want.bytes},
                          {"zlib_mb_s", zlib_mbps},       {"isal_mb_s", isal_mbps},
                          {"input_file_mb_s", file_mbps}, {"speedup", isal_mbps / zlib_mbps}};
  }
  std::printf("%s\n", doc.dump().c_str());
  return 0;
}
