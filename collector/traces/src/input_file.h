// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace stallwatch::collector {

// A read-only byte stream over one trace file, transparently inflating gzip
// (detected by its magic bytes, not the file name). Streaming: holds one
// inflate window (ISA-L igzip) and no more, whatever the file size.
//
// One thread at a time; owns its file descriptor. Does not parse anything.
class InputFile {
 public:
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // nullptr with `error` set ("cannot open x: No such file or directory").
  static std::unique_ptr<InputFile> open(const std::string& path, std::string& error);

  // Fills up to `capacity` bytes; returns the count, 0 at end of input, -1 on
  // a read or inflate error (see error()).
  std::ptrdiff_t read(char* dst, std::size_t capacity);

  bool compressed() const { return compressed_; }
  // Bytes consumed from disk so far (compressed size for .gz).
  std::uint64_t disk_bytes() const { return disk_bytes_; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  struct Inflater;
  InputFile(std::string path, int fd);
  std::ptrdiff_t read_raw(char* dst, std::size_t capacity);

  std::string path_;
  int fd_ = -1;
  bool compressed_ = false;
  std::uint64_t disk_bytes_ = 0;
  std::string error_;
  std::unique_ptr<Inflater> inflater_;
};

}  // namespace stallwatch::collector
