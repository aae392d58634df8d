// SPDX-License-Identifier: MIT
#include "dftracer_reader.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <string_view>
#include <utility>

#include "dftracer_record.h"
#include "traces/json_value.h"

namespace stallwatch::collector {

namespace {

static_assert(LineReader::kLinePadding >= kScanPadding, "lines go to the scanner in place");

// The path of a call whose args.fhash no FH record names (as the engine
// calls a file id no posix_file mark names).
constexpr std::string_view kUnknownFile = "<unknown file>";
// FH records kept per file read (about 100 bytes each); the files named
// after these read as kUnknownFile.
constexpr std::size_t kMaxFilePaths = 1'000'000;

// A CM value this large is a µs timestamp (after 1970-01-12), not a parameter.
constexpr std::int64_t kMinMarkTimestampNs = 1'000'000'000'000;

bool is_space_or_comma(char c) {
  return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n';
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The bytes a POSIX read or write call (args.ret) or a STDIO fread or fwrite
// (args.ret items of args.size bytes) moved, 0 when it failed; -1 for any
// other call, or an fread/fwrite without its size.
std::int64_t bytes_moved(const DftracerRecord& r) {
  static constexpr std::string_view kPosix[] = {"read",     "pread",    "pread64",  "readv",
                                                "preadv",   "preadv64", "write",    "pwrite",
                                                "pwrite64", "pwritev",  "pwritev64"};
  if (r.cat == "POSIX") {
    if (std::find(std::begin(kPosix), std::end(kPosix), r.name) == std::end(kPosix)) return -1;
    return std::max<std::int64_t>(r.ret, 0);
  }
  if (r.cat != "STDIO" || (r.name != "fread" && r.name != "fwrite") || r.size < 0) return -1;
  if (r.ret <= 0) return 0;
  return r.size > 0 && r.ret > std::numeric_limits<std::int64_t>::max() / r.size ? -1
                                                                                 : r.ret * r.size;
}

}  // namespace

DftracerReader::DftracerReader(std::unique_ptr<InputFile> file, TraceFileInfo info)
    : file_(std::move(file)), lines_(*file_), info_(std::move(info)) {
  stats_.file = info_.path;
}

void DftracerReader::resolve_process(TraceEvent& event, std::int64_t fork_ret, bool is_fork) {
  if (is_fork) {
    if (event.tid != event.pid && fork_ret == 0) {
      children_[event.pid].insert(event.tid);
    } else if (event.tid == event.pid && fork_ret > 0) {
      children_[event.pid].insert(fork_ret);
    }
  }
  event.os_pid = event.pid;
  if (event.tid != event.pid) {
    auto it = children_.find(event.pid);
    if (it != children_.end() && it->second.count(event.tid) != 0) event.os_pid = event.tid;
  }
}

DftracerReader::Parsed DftracerReader::parse_line(const Line& line, TraceEvent& event,
                                                  std::string& problem) {
  std::string_view text = line.text;
  while (!text.empty() && is_space_or_comma(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && is_space_or_comma(text.back()))
    text.remove_suffix(1);
  if (text.empty() || text == "[" || text == "]") return Parsed::kSkip;
  if (text.front() != '{') {
    problem = "not a JSON object";
    return Parsed::kMalformed;
  }
  ++stats_.records;
  DftracerRecord& r = record_;
  if (!scan_dftracer_record(text, r) &&
      !parse_dftracer_record(parser_, text, LineReader::kLinePadding, r, problem)) {
    return Parsed::kMalformed;
  }
  ++record_index_;
  event = TraceEvent{};
  event.index = record_index_ - 1;
  event.line = line.number;
  event.name = r.name;
  event.cat = r.cat;
  event.pid = r.pid;
  event.tid = r.tid;
  event.ts_ns = r.ts_ns;
  event.dur_ns = r.dur_ns;
  event.step = r.step;
  event.epoch = r.epoch;
  const std::int64_t phase = r.has_phase ? r.phase : (r.has_dur ? kPhaseComplete : kPhaseUnknown);
  if (!r.has_pid && phase != kPhaseMetadata) {
    problem = "missing \"pid\"";
    return Parsed::kMalformed;
  }
  if (r.has_pid && info_.pid < 0) info_.pid = event.pid;

  if (phase == kPhaseMetadata) {
    return finish_metadata(event, r.meta_name, r.meta_value, r.has_meta_value, problem);
  }
  if (phase == kPhaseUnknown) {
    ++stats_.ignored;
    return Parsed::kSkip;
  }
  if (!r.has_ts) {
    problem = "missing \"ts\"";
    return Parsed::kMalformed;
  }
  if (event.dur_ns < 0) {
    problem = "negative \"dur\"";
    return Parsed::kMalformed;
  }
  resolve_process(event, r.ret, event.name == "fork" || event.name == "vfork");
  if (r.start_ppid >= 0 && event.name == "start" && event.pid == info_.pid && info_.ppid < 0) {
    info_.ppid = r.start_ppid;
  }
  switch (phase) {
    case kPhaseComplete:
      event.kind = TraceEventKind::kComplete;
      if (r.has_ret) event.bytes = bytes_moved(r);
      if (!r.fname.empty()) {
        event.file = r.fname;
      } else if (!r.fhash.empty()) {
        file_key_.assign(r.fhash);
        const auto it = file_paths_.find(file_key_);
        event.file = it != file_paths_.end() ? std::string_view(it->second) : kUnknownFile;
      }
      break;
    case kPhaseCounter:
      event.kind = TraceEventKind::kCounter;
      event.dur_ns = 0;
      event.value = r.has_counter_value ? r.counter_value : 0;
      break;
    case kPhaseAggregated:
      event.kind = TraceEventKind::kAggregated;
      ++stats_.aggregated;
      break;
    default:
      event.kind = TraceEventKind::kMark;
      event.dur_ns = 0;
      break;
  }
  return Parsed::kEvent;
}

DftracerReader::Parsed DftracerReader::finish_metadata(TraceEvent& event,
                                                       std::string_view meta_name,
                                                       std::string_view meta_value,
                                                       bool has_meta_value, std::string& problem) {
  (void)problem;
  ++stats_.metadata;
  if (event.name == "HH" && info_.host.empty() && !meta_name.empty()) {
    info_.host = std::string(meta_name);
  }
  if (event.name == "FH" && !meta_name.empty() && has_meta_value && !meta_value.empty()) {
    if (file_paths_.size() < kMaxFilePaths) {
      file_paths_.insert_or_assign(std::string(meta_value), std::string(meta_name));
    }
    return Parsed::kSkip;
  }
  if (event.name != "CM" || meta_name.empty() || !has_meta_value) return Parsed::kSkip;
  std::int64_t ts_ns = 0;
  if (!detail::parse_micros_as_nanos(meta_value, ts_ns)) return Parsed::kSkip;
  const bool mark_like = ends_with(meta_name, ".start") || ends_with(meta_name, ".end");
  if (!mark_like && ts_ns < kMinMarkTimestampNs) return Parsed::kSkip;
  resolve_process(event, -1, false);
  event.kind = TraceEventKind::kMark;
  event.name = meta_name;
  event.ts_ns = ts_ns;
  event.dur_ns = 0;
  // The n-th occurrence of a mark in a process carries n (epoch.start -> epoch index).
  mark_key_.assign(std::to_string(event.os_pid));
  mark_key_.push_back('/');
  mark_key_.append(meta_name);
  event.value = mark_counts_[mark_key_]++;
  if (event.epoch != kNoValue && (meta_name == "epoch.start" || meta_name == "epoch.end")) {
    event.value = event.epoch;
  }
  return Parsed::kEvent;
}

bool DftracerReader::next(TraceEvent& event) {
  if (done_) return false;
  Line line;
  std::string problem;
  while (lines_.next(line)) {
    problem.clear();
    switch (parse_line(line, event, problem)) {
      case Parsed::kEvent:
        ++stats_.events;
        return true;
      case Parsed::kSkip:
        break;
      case Parsed::kMalformed:
        stats_.malformed_at(line.number, line.offset, problem);
        break;
    }
  }
  done_ = true;
  stats_.bytes = lines_.bytes();
  stats_.disk_bytes = file_->disk_bytes();
  if (lines_.skipped_long_lines() > 0) {
    stats_.malformed_at(0, 0,
                        std::to_string(lines_.skipped_long_lines()) +
                            " line(s) longer than the line limit skipped");
    stats_.malformed += lines_.skipped_long_lines() - 1;
  }
  if (!lines_.error().empty()) {
    // A cut-off or damaged .gz still yields what came before the damage.
    if (stats_.records > 0) {
      stats_.malformed_at(0, lines_.bytes(), lines_.error());
    } else {
      error_ = lines_.error();
    }
  }
  return false;
}

}  // namespace stallwatch::collector
