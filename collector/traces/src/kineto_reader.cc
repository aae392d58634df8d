// SPDX-License-Identifier: MIT
#include "kineto_reader.h"

#include <cmath>
#include <utility>

#include "traces/json_value.h"

namespace stallwatch::collector {

namespace {

constexpr const char* kEventsKey = "traceEvents";

void read_member(simdjson::ondemand::parser& parser, std::string_view key, std::string_view text,
                 TraceFileInfo& info) {
  simdjson::ondemand::document doc;
  if (parser.iterate(text.data(), text.size(), text.size() + JsonObjectScanner::kPadding)
          .get(doc)) {
    return;
  }
  if (key == "distributedInfo") {
    simdjson::ondemand::object object;
    if (doc.get_object().get(object)) return;
    for (auto field_result : object) {
      simdjson::ondemand::field field;
      std::string_view name;
      if (std::move(field_result).get(field) || field.unescaped_key().get(name)) return;
      std::int64_t v = 0;
      if (name == "rank" && detail::json_int(field.value(), v)) info.rank = v;
      if (name == "world_size" && detail::json_int(field.value(), v)) info.world_size = v;
    }
  } else if (key == "baseTimeNanoseconds") {
    std::int64_t v = 0;
    if (!doc.get_int64().get(v)) info.base_time_ns = v;
  } else if (key == "host_name" || key == "hostname") {
    std::string_view host;
    if (!doc.get_string().get(host) && info.host.empty()) info.host = std::string(host);
  }
}

}  // namespace

KinetoReader::KinetoReader(std::unique_ptr<InputFile> file, TraceFileInfo info)
    : file_(std::move(file)), scanner_(*file_, kEventsKey), info_(std::move(info)) {
  stats_.file = info_.path;
  scanner_.set_element_reader(&KinetoReader::read_element, this);
}

std::size_t KinetoReader::read_element(std::string_view rest, void* self) {
  auto& reader = *static_cast<KinetoReader*>(self);
  *reader.target_ = TraceEvent{};
  reader.element_ = KinetoElement{};
  std::size_t length = 0;
  return parse_kineto_element_fast_prefix(rest, *reader.target_, reader.element_, length) ? length
                                                                                          : 0;
}

std::string KinetoReader::scan_metadata(const std::string& path, TraceFileInfo& info) {
  std::string error;
  auto file = InputFile::open(path, error);
  if (!file) return error;
  JsonObjectScanner scanner(*file, kEventsKey);
  simdjson::ondemand::parser parser;
  for (;;) {
    switch (scanner.next()) {
      case JsonObjectScanner::Item::kMember:
        read_member(parser, scanner.key(), scanner.text(), info);
        break;
      case JsonObjectScanner::Item::kElement:
        // Members written before the events are usually all there is to learn;
        // only a file without distributedInfo up front is scanned to its end.
        if (info.rank >= 0) return {};
        break;
      case JsonObjectScanner::Item::kEnd:
        return {};
      case JsonObjectScanner::Item::kError:
        return scanner.bytes() == 0 ? path + ": " + scanner.error() : std::string();
    }
  }
}

void KinetoReader::parse_member() {
  read_member(parser_, scanner_.key(), scanner_.text(), info_);
}

KinetoReader::Parsed KinetoReader::parse_element(TraceEvent& event, std::string& problem) {
  const std::string_view text = scanner_.text();
  const std::uint64_t index = element_index_++;
  ++stats_.records;
  KinetoElement element;
  if (scanner_.element_read()) {
    // The hand-written parser read it while the scanner measured it.
    element = element_;
  } else {
    event = TraceEvent{};
    if (!parse_kineto_element_fast(text, event, element)) {
      // Not the common shape: simdjson reads it, or says what is wrong.
      event = TraceEvent{};
      element = KinetoElement{};
      if (!parse_kineto_element(parser_, text, event, element, problem)) return Parsed::kMalformed;
    }
  }
  event.index = index;
  const std::string_view ph = element.ph;
  const bool has_ts = element.has_ts;
  const bool has_dur = element.has_dur;
  if (!has_ts || event.ts_is_float) info_.fractional_ts = true;
  if (info_.pid < 0 && ph == "X" && event.stream < 0) info_.pid = event.pid;
  event.os_pid = event.pid;
  if (ph == "X") {
    if (!has_ts) {
      problem = "complete event without \"ts\"";
      return Parsed::kMalformed;
    }
    event.kind = TraceEventKind::kComplete;
    if (!has_dur) event.dur_ns = 0;
    if (event.dur_ns < 0) {
      problem = "negative \"dur\"";
      return Parsed::kMalformed;
    }
    return Parsed::kEvent;
  }
  if ((ph == "i" || ph == "I") && has_ts) {
    event.kind = TraceEventKind::kMark;
    event.dur_ns = 0;
    return Parsed::kEvent;
  }
  if (ph == "C" && has_ts) {
    event.kind = TraceEventKind::kCounter;
    event.dur_ns = 0;
    return Parsed::kEvent;
  }
  if (ph == "M") {
    ++stats_.metadata;
  } else {
    ++stats_.ignored;
  }
  return Parsed::kSkip;
}

bool KinetoReader::next(TraceEvent& event) {
  if (done_) return false;
  target_ = &event;
  std::string problem;
  for (;;) {
    switch (scanner_.next()) {
      case JsonObjectScanner::Item::kMember:
        parse_member();
        break;
      case JsonObjectScanner::Item::kElement:
        problem.clear();
        switch (parse_element(event, problem)) {
          case Parsed::kEvent:
            ++stats_.events;
            return true;
          case Parsed::kSkip:
            break;
          case Parsed::kMalformed:
            stats_.malformed_at(0, scanner_.offset(), problem);
            break;
        }
        break;
      case JsonObjectScanner::Item::kEnd:
        done_ = true;
        break;
      case JsonObjectScanner::Item::kError:
        done_ = true;
        if (scanner_.bytes() == 0 || stats_.records == 0) {
          error_ = info_.path + ": " + scanner_.error();
        } else {
          stats_.malformed_at(0, scanner_.bytes(), scanner_.error());
        }
        break;
    }
    if (done_) {
      stats_.bytes = scanner_.bytes();
      stats_.disk_bytes = file_->disk_bytes();
      return false;
    }
  }
}

}  // namespace stallwatch::collector
