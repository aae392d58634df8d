// SPDX-License-Identifier: MIT
// The fast scanner of a dftracer line's "args" object: the keys the reader
// keeps (dftracer_record.h), told apart by length first; every other value
// skipped, or taken as the counter value of a "C" record.

#include "dftracer_scan_args.h"

#include <cstdint>
#include <string_view>

#include "traces/json_value.h"

namespace stallwatch::collector::detail {

namespace {

// args.step / args.epoch: an integer or a decimal string; anything else is ignored.
bool scan_int_like(DftracerScanner& s, std::int64_t& out) {
  if (s.peek('"')) {
    std::string_view text;
    if (!s.plain_string(text)) return false;
    std::int64_t v = 0;
    if (parse_int(text, v)) out = v;
    return true;
  }
  return s.integer(out);
}

enum class ArgKey : std::uint8_t {
  kOther,
  kHhash,
  kName,
  kValue,
  kStep,
  kEpoch,
  kRet,
  kPpid,
  kSize,
  kFname,
  kFhash
};

// The args keys the reader takes, told apart by length first.
ArgKey arg_key(std::string_view key) {
  switch (key.size()) {
    case 3:
      return key == "ret" ? ArgKey::kRet : ArgKey::kOther;
    case 4:
      if (key == "name") return ArgKey::kName;
      if (key == "step") return ArgKey::kStep;
      if (key == "size") return ArgKey::kSize;
      return key == "ppid" ? ArgKey::kPpid : ArgKey::kOther;
    case 5:
      if (key == "hhash") return ArgKey::kHhash;
      if (key == "value") return ArgKey::kValue;
      if (key == "fname") return ArgKey::kFname;
      if (key == "fhash") return ArgKey::kFhash;
      return key == "epoch" ? ArgKey::kEpoch : ArgKey::kOther;
    default:
      return ArgKey::kOther;
  }
}

}  // namespace

bool scan_dftracer_args(DftracerScanner& s, DftracerRecord& r) {
  if (!s.lit('{')) return false;
  if (s.lit('}')) return true;
  const bool want_counter = !r.has_phase || r.phase == kPhaseCounter;
  const bool want_ret = dftracer_wants_ret(r.cat, r.name);
  for (;;) {
    std::string_view key;
    if (!s.plain_string(key) || !s.lit(':')) return false;
    bool ok = true;
    switch (arg_key(key)) {
      case ArgKey::kHhash:
        ok = s.skip_value();
        break;
      case ArgKey::kName:
        ok = s.text(r.meta_name);
        break;
      case ArgKey::kValue: {
        ok = s.text(r.meta_value);
        r.has_meta_value = ok;
        std::int64_t v = 0;
        if (ok && parse_int(r.meta_value, v)) {
          r.counter_value = v;
          r.has_counter_value = true;
        }
        break;
      }
      case ArgKey::kStep:
        ok = scan_int_like(s, r.step);
        break;
      case ArgKey::kEpoch:
        ok = scan_int_like(s, r.epoch);
        break;
      case ArgKey::kPpid:
        ok = s.integer(r.start_ppid);
        break;
      case ArgKey::kFname:
        ok = want_ret ? s.text(r.fname) : s.skip_value();
        break;
      case ArgKey::kFhash:
        ok = want_ret ? s.text(r.fhash) : s.skip_value();
        break;
      case ArgKey::kRet:
        if (want_ret) {
          ok = r.has_ret = s.integer(r.ret);
          break;
        }
        [[fallthrough]];
      case ArgKey::kSize:
        if (want_ret) {
          ok = s.integer(r.size);
          break;
        }
        [[fallthrough]];
      case ArgKey::kOther:
        if (want_counter && !r.has_counter_value && !s.peek('"') && !s.peek('{') && !s.peek('[')) {
          std::int64_t v = 0;
          if (s.integer(v)) {
            r.counter_value = v;
            r.has_counter_value = true;
          } else {
            ok = s.skip_value();
          }
        } else {
          ok = s.skip_value();
        }
        break;
    }
    if (!ok) return false;
    if (s.lit(',')) continue;
    return s.lit('}');
  }
}

}  // namespace stallwatch::collector::detail
