// SPDX-License-Identifier: MIT
#include "kineto_reader.h"

#include <cmath>
#include <utility>

#include "traces/json_value.h"

namespace stallwatch::collector {

namespace {

using detail::key_is;
using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;

constexpr const char* kEventsKey = "traceEvents";

// Reads a JSON number as the double Python's json module would produce, plus
// its exact ns value and whether it was written as an integer.
bool read_time(simdjson::ondemand::value value, double& us, std::int64_t& ns, bool& is_float) {
  json_type type;
  if (value.type().get(type) || type != json_type::number) return false;
  number_type nt;
  if (value.get_number_type().get(nt)) return false;
  is_float = nt == number_type::floating_point_number;
  if (value.get_double().get(us)) return false;
  std::string_view token = value.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t')) {
    token.remove_suffix(1);
  }
  return detail::parse_micros_as_nanos(token, ns);
}

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
  event = TraceEvent{};
  event.index = element_index_++;
  ++stats_.records;
  simdjson::ondemand::document doc;
  if (auto err =
          parser_.iterate(text.data(), text.size(), text.size() + JsonObjectScanner::kPadding)
              .get(doc)) {
    problem = simdjson::error_message(err);
    return Parsed::kMalformed;
  }
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) {
    problem = "traceEvents element is not an object";
    return Parsed::kMalformed;
  }
  std::string_view ph;
  bool has_ts = false;
  bool has_dur = false;
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (auto err = std::move(field_result).get(field)) {
      problem = simdjson::error_message(err);
      return Parsed::kMalformed;
    }
    // Raw keys: profiler keys have no escapes, and nothing is unescaped.
    const char* key = field.key().raw();
    simdjson::ondemand::value value = field.value();
    if (key_is(key, "ph")) {
      if (value.get_string().get(ph)) {
        problem = "\"ph\" is not a string";
        return Parsed::kMalformed;
      }
    } else if (key_is(key, "name")) {
      std::string_view s;
      if (!detail::json_text(value, s)) {
        problem = "\"name\" is not a string";
        return Parsed::kMalformed;
      }
      event.name = s;
    } else if (key_is(key, "cat")) {
      std::string_view s;
      if (!detail::json_text(value, s)) {
        problem = "\"cat\" is not a string";
        return Parsed::kMalformed;
      }
      event.cat = s;
    } else if (key_is(key, "pid")) {
      detail::json_int(value, event.pid);
    } else if (key_is(key, "tid")) {
      detail::json_int(value, event.tid);
    } else if (key_is(key, "ts")) {
      bool is_float = false;
      if (!read_time(value, event.ts_us, event.ts_ns, is_float)) {
        problem = "\"ts\" is not a number";
        return Parsed::kMalformed;
      }
      event.ts_is_float = is_float;
      has_ts = true;
    } else if (key_is(key, "dur")) {
      bool is_float = false;
      if (!read_time(value, event.dur_us, event.dur_ns, is_float)) {
        problem = "\"dur\" is not a number";
        return Parsed::kMalformed;
      }
      has_dur = true;
    } else if (key_is(key, "args")) {
      simdjson::ondemand::object args;
      if (value.get_object().get(args)) continue;
      for (auto arg_result : args) {
        simdjson::ondemand::field arg;
        if (std::move(arg_result).get(arg)) {
          problem = "bad \"args\"";
          return Parsed::kMalformed;
        }
        const char* arg_key = arg.key().raw();
        if (key_is(arg_key, "stream")) {
          detail::json_int(arg.value(), event.stream);
        } else if (key_is(arg_key, "correlation")) {
          detail::json_int(arg.value(), event.correlation);
        } else if (key_is(arg_key, "External id")) {
          detail::json_int(arg.value(), event.external_id);
        }
      }
    }
  }
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
