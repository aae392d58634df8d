// SPDX-License-Identifier: MIT
#include "dftracer_record.h"

#include "traces/json_value.h"

namespace stallwatch::collector {

std::int64_t dftracer_phase_from_letter(std::string_view ph) {
  if (ph == "X") return kPhaseComplete;
  if (ph == "C") return kPhaseCounter;
  if (ph == "M") return kPhaseMetadata;
  if (ph == "A") return kPhaseAggregated;
  if (ph == "i" || ph == "I" || ph == "R") return kPhaseInstant;
  return kPhaseUnknown;
}

bool parse_dftracer_record(simdjson::ondemand::parser& parser, std::string_view line,
                           std::size_t padding, DftracerRecord& r, std::string& problem) {
  using detail::key_is;
  using simdjson::ondemand::json_type;
  r = DftracerRecord{};
  simdjson::ondemand::document doc;
  if (auto err = parser.iterate(line.data(), line.size(), line.size() + padding).get(doc)) {
    problem = simdjson::error_message(err);
    return false;
  }
  simdjson::ondemand::object object;
  if (auto err = doc.get_object().get(object)) {
    problem = simdjson::error_message(err);
    return false;
  }
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (auto err = std::move(field_result).get(field)) {
      problem = simdjson::error_message(err);
      return false;
    }
    const char* key = field.key().raw();
    simdjson::ondemand::value value = field.value();
    if (key_is(key, "name")) {
      if (value.get_string().get(r.name)) {
        problem = "\"name\" is not a string";
        return false;
      }
    } else if (key_is(key, "cat")) {
      if (value.get_string().get(r.cat)) {
        problem = "\"cat\" is not a string";
        return false;
      }
    } else if (key_is(key, "pid")) {
      if (!detail::json_int(value, r.pid)) {
        problem = "\"pid\" is not an integer";
        return false;
      }
      r.has_pid = true;
    } else if (key_is(key, "tid")) {
      if (!detail::json_int(value, r.tid)) {
        problem = "\"tid\" is not an integer";
        return false;
      }
    } else if (key_is(key, "ts")) {
      if (!detail::json_micros(value, r.ts_ns)) {
        problem = "\"ts\" is not a number of microseconds";
        return false;
      }
      r.has_ts = true;
    } else if (key_is(key, "dur")) {
      if (!detail::json_micros(value, r.dur_ns)) {
        problem = "\"dur\" is not a number of microseconds";
        return false;
      }
      r.has_dur = true;
    } else if (key_is(key, "ph")) {
      std::string_view ph;
      if (!value.get_string().get(ph)) {
        r.phase = dftracer_phase_from_letter(ph);
      } else if (!detail::json_int(value, r.phase)) {
        problem = "bad \"ph\"";
        return false;
      }
      r.has_phase = true;
    } else if (key_is(key, "args")) {
      simdjson::ondemand::object args;
      if (value.get_object().get(args)) continue;  // non-object args carry nothing we use
      const bool want_counter = !r.has_phase || r.phase == kPhaseCounter;
      const bool want_ret = dftracer_wants_ret(r.cat, r.name);
      for (auto arg_result : args) {
        simdjson::ondemand::field arg;
        if (auto err = std::move(arg_result).get(arg)) {
          problem = simdjson::error_message(err);
          return false;
        }
        const char* arg_key = arg.key().raw();
        if (key_is(arg_key, "hhash")) continue;
        simdjson::ondemand::value arg_value = arg.value();
        if (key_is(arg_key, "name")) {
          detail::json_text(arg_value, r.meta_name);
        } else if (key_is(arg_key, "value")) {
          r.has_meta_value = detail::json_text(arg_value, r.meta_value);
          std::int64_t v = 0;
          if (r.has_meta_value && detail::parse_int(r.meta_value, v)) {
            r.counter_value = v;
            r.has_counter_value = true;
          }
        } else if (key_is(arg_key, "step")) {
          std::int64_t v = 0;
          if (detail::json_int(arg_value, v)) r.step = v;
        } else if (key_is(arg_key, "epoch")) {
          std::int64_t v = 0;
          if (detail::json_int(arg_value, v)) r.epoch = v;
        } else if (want_ret && key_is(arg_key, "ret")) {
          r.has_ret = detail::json_int(arg_value, r.ret);
        } else if (want_ret && key_is(arg_key, "size")) {
          detail::json_int(arg_value, r.size);
        } else if (want_ret && key_is(arg_key, "fname")) {
          detail::json_text(arg_value, r.fname);
        } else if (want_ret && key_is(arg_key, "fhash")) {
          detail::json_text(arg_value, r.fhash);
        } else if (key_is(arg_key, "ppid")) {
          detail::json_int(arg_value, r.start_ppid);
        } else if (want_counter && !r.has_counter_value) {
          std::int64_t v = 0;
          if (!arg_value.get_int64().get(v)) {
            r.counter_value = v;
            r.has_counter_value = true;
          }
        }
      }
    }
  }
  return true;
}

}  // namespace stallwatch::collector
