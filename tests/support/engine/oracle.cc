// SPDX-License-Identifier: MIT
#include "oracle.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <set>

#include "stallwatch/event_flags.h"
#include "stallwatch/protocol.h"

namespace stallwatch::collector::testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint8_t kC = 1, kD = 2, kF = 4, kA = 8, kI = 16, kM = 32;

std::int64_t floor_to(std::int64_t t, std::int64_t res) {
  std::int64_t q = t / res;
  if (t % res != 0 && t < 0) --q;
  return q * res;
}

double percentile(std::vector<std::int64_t> v, double p) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(lo);
  double x = static_cast<double>(v[lo]);
  if (frac > 0 && lo + 1 < v.size()) x += frac * (static_cast<double>(v[lo + 1]) - x);
  return x / 1e9;
}

// An End's value as a whole number (a double one truncated).
std::int64_t io_value(const Event& ev) {
  if (!(ev.flags & kEventValueIsDouble)) return ev.value;
  const double d = std::bit_cast<double>(ev.value);
  return std::isfinite(d) ? static_cast<std::int64_t>(std::clamp(d, -9.0e18, 9.0e18)) : 0;
}

}  // namespace

Oracle::Oracle(const EngineConfig& config, const NameTable& names)
    : config_(config), names_(names) {}

void Oracle::close(std::int64_t a, std::int64_t b, std::uint8_t mask) {
  if (a < b && (mask & 0x3F))
    closed_.push_back(Interval{a, b, static_cast<std::uint8_t>(mask & 0x3F)});
}

void Oracle::fetch_step(bool main, std::uint8_t mask, std::int64_t end, bool on_time) {
  if (main && (mask & kF) && on_time && end >= start_ && (horizon_ == kNone || end >= horizon_)) {
    steps_.emplace_back(end, true);
  }
}

void Oracle::io_call(std::string_view cat, std::string_view name, std::int64_t end,
                     std::int64_t value, bool on_time) {
  if (cat != "POSIX" && cat != "STDIO") return;
  static constexpr std::string_view kReads[] = {"read",   "pread",    "pread64", "readv",
                                                "preadv", "preadv64", "fread"};
  static constexpr std::string_view kWrites[] = {"write",   "pwrite",    "pwrite64",
                                                 "pwritev", "pwritev64", "fwrite"};
  const bool read = std::find(std::begin(kReads), std::end(kReads), name) != std::end(kReads);
  const bool write = std::find(std::begin(kWrites), std::end(kWrites), name) != std::end(kWrites);
  if (!read && !write) return;
  if (on_time && end >= start_ && (horizon_ == kNone || end >= horizon_)) {
    io_calls_.push_back(IoCall{end, write, std::max<std::int64_t>(value, 0)});
  }
}

void Oracle::file_call(std::size_t source, std::string_view cat, std::string_view name,
                       std::int64_t file, std::int64_t begin, std::int64_t end, std::int64_t value,
                       bool on_time) {
  if (cat != "POSIX" && cat != "STDIO") return;
  if (file <= 0 || file > 0xFFFFFFFF) return;
  if (!on_time || end < start_ || (horizon_ != kNone && end < horizon_)) return;
  static constexpr std::string_view kReads[] = {"read",   "pread",    "pread64", "readv",
                                                "preadv", "preadv64", "fread"};
  static constexpr std::string_view kWrites[] = {"write",   "pwrite",    "pwrite64",
                                                 "pwritev", "pwritev64", "fwrite"};
  const int direction =
      std::find(std::begin(kReads), std::end(kReads), name) != std::end(kReads)      ? 1
      : std::find(std::begin(kWrites), std::end(kWrites), name) != std::end(kWrites) ? 2
                                                                                     : 0;
  file_calls_.push_back(FileCall{source, static_cast<std::uint32_t>(file), end,
                                 std::max<std::int64_t>(end - begin, 0), direction,
                                 std::max<std::int64_t>(value, 0)});
}

void Oracle::ingest(const DecodedBatch& b, std::int64_t now_ns) {
  auto it = std::find_if(sources_.begin(), sources_.end(),
                         [&](const Source& s) { return s.pid == b.source.pid; });
  if (it == sources_.end()) {
    Source s;
    s.pid = b.source.pid;
    s.role = b.source.role;
    s.device = b.source.device_source;
    s.ppid = b.source.ppid;
    sources_.push_back(s);
    it = sources_.end() - 1;
    std::int64_t first = b.sent_at_ns;
    for (const auto& e : b.events)
      first = std::min(first, e.ts_ns);
    const std::int64_t claimed =
        b.source.start_ns > 0 && b.source.start_ns <= first ? b.source.start_ns : first;
    if (!has_start_) {
      has_start_ = true;
      start_ = claimed;
    }
  }
  Source& src = *it;
  const auto src_index = static_cast<std::size_t>(it - sources_.begin());
  if (src.finished && !b.final) src.finished = false;
  const std::size_t closed_before = closed_.size();
  const ClassMapping& mapping = config_.classes;
  const std::int64_t h = horizon_;
  const std::int64_t lower = h == kNone ? start_ : std::max(h, start_);
  const std::int64_t hi = std::max(src.wm, b.sent_at_ns);
  for (const Event& ev : b.events) {
    const std::int64_t ts = std::min(ev.ts_ns, hi);
    const bool late = h != kNone && ts < h;
    const bool main =
        src.role == ProcessRole::kMain && ev.tid == static_cast<std::uint32_t>(src.pid);
    const auto cat = names_.str(ev.cat);
    const auto name = names_.str(ev.name);
    const std::uint64_t key = (std::uint64_t{ev.tid} << 32) | ev.region_id;
    switch (ev.kind) {
      case EventKind::kComplete: {
        const std::uint8_t mask = mapping.classify(cat, name, main);
        const std::int64_t end = std::min(ts + std::max<std::int64_t>(ev.dur_ns, 0), hi);
        late_ += late;
        close(std::max(ts, lower), end, mask);
        fetch_step(main, mask, end, true);
        if (ev.flags & wire::kEventFlagCompleteValue) {
          io_call(cat, name, end, io_value(ev), true);
          file_call(src_index, cat, name, ev.region_id, ts, end, io_value(ev), true);
        }
        if ((ev.flags & wire::kEventFlagCorrelation) && cat != "cuda_runtime" && end >= lower) {
          kernel_work_.push_back(KernelWork{ev.name, end, end - ts});
        }
        break;
      }
      case EventKind::kBegin: {
        late_ += late;
        const std::uint8_t mask = mapping.classify(cat, name, main);
        auto found = src.open.find(key);
        if (found != src.open.end() && found->second.orphan) {
          const Open orphan = found->second;
          src.open.erase(found);
          close(std::max(ts, lower), orphan.end, mask);
          fetch_step(main, mask, orphan.end, orphan.end_on_time);
          io_call(cat, name, orphan.end, orphan.end_value, orphan.end_not_late);
          file_call(src_index, cat, name, io_value(ev), ts, orphan.end, orphan.end_value,
                    orphan.end_not_late);
          break;
        }
        if (found != src.open.end()) ++unpaired_;
        src.open[key] =
            Open{std::max(ts, lower), mask, main, false, 0, 0, false, 0, false, cat, name, ts,
                 io_value(ev)};
        break;
      }
      case EventKind::kEnd: {
        late_ += late;
        auto found = src.open.find(key);
        if (found != src.open.end() && !found->second.orphan) {
          close(std::max(found->second.begin_eff, lower), ts, found->second.mask);
          // The wait that ended a loop, or a call that returned a generator,
          // brought no batch: no step.
          fetch_step(
              found->second.main, found->second.mask, ts,
              !late && ev.value != wire::kEndLoopExhausted && io_value(ev) != wire::kEndNoItem);
          io_call(found->second.cat, found->second.name, ts, io_value(ev), !late);
          file_call(src_index, found->second.cat, found->second.name, found->second.file,
                    found->second.begin, ts, io_value(ev), !late);
          src.open.erase(found);
        } else if (found != src.open.end()) {
          ++unpaired_;
        } else {
          src.open[key] =
              Open{0,
                   0,
                   false,
                   true,
                   ts,
                   std::max(ts, lower),
                   !late && ev.value != wire::kEndLoopExhausted && io_value(ev) != wire::kEndNoItem,
                   io_value(ev),
                   !late,
                   {},
                   {}};
        }
        break;
      }
      case EventKind::kMark:
        if (const std::int64_t v = io_value(ev); cat == "posix_file" && v > 0 && v <= 0xFFFFFFFF) {
          const auto id = static_cast<std::uint32_t>(v);
          if (src.files.contains(id) || src.files.size() < config_.max_files_per_source)
            src.files[id] = name;
        }
        if (late) {
          ++late_;
        } else if (name == config_.step_mark && ts >= start_) {
          steps_.emplace_back(ts, false);
          first_mark_ = std::min(first_mark_, ts);
        }
        break;
      case EventKind::kCounter:
        if (late) {
          ++late_;
        } else if (name == config_.batch_size_counter) {
          sizes_.emplace_back(ts, static_cast<double>(ev.value));
        }
        break;
    }
  }
  src.wm = std::max(src.wm, b.sent_at_ns);
  wm_ = std::max(wm_, src.wm);
  if (b.final) {
    for (auto& [key, o] : src.open) {
      ++unpaired_;
      if (!o.orphan) close(std::max(o.begin_eff, lower), b.sent_at_ns, o.mask);
    }
    src.open.clear();
    src.finished = true;
    src.final_at = b.sent_at_ns;
  }
  for (std::size_t i = closed_before; i < closed_.size(); ++i)
    src.device_events |= (closed_[i].mask & kD) != 0;

  const bool all_finished =
      std::all_of(sources_.begin(), sources_.end(), [](const Source& s) { return s.finished; });
  if (!all_finished) {
    finished_since_ = kNone;
  } else if (finished_since_ == kNone) {
    finished_since_ = now_ns;
  }
  advance_to(floor_to(wm_ - config_.lateness_ns, config_.resolution_ns));
}

void Oracle::settle(std::int64_t now_ns) {
  if (finished_since_ == kNone || now_ns - finished_since_ < config_.lateness_ns) return;
  std::int64_t end = kNone;
  for (const auto& s : sources_)
    end = std::max({end, s.final_at, s.wm});
  advance_to(-floor_to(-std::max(end, start_), config_.resolution_ns));
}

void Oracle::advance_to(std::int64_t next) {
  if (horizon_ != kNone && next <= horizon_) return;
  const std::int64_t from = horizon_ == kNone ? start_ : std::max(horizon_, start_);
  if (next > from) {
    std::vector<std::uint8_t> live;
    paint_live(from, next, live);
    if (static_cast<std::int64_t>(final_.size()) < index(next)) final_.resize(index(next), 0);
    std::copy(live.begin(), live.end(), final_.begin() + index(from));
    const bool real = real_device();
    for (const std::uint8_t m : live) {
      const std::uint8_t busy = real ? kD : kC;
      final_device_ns_ += (m & busy) ? 1000 : 0;
      final_stall_ns_ += (m & kF) && !(m & busy) ? 1000 : 0;
    }
  }
  horizon_ = next;
  for (auto& s : sources_) {
    for (auto o = s.open.begin(); o != s.open.end();) {
      if (o->second.orphan && o->second.end_eff < horizon_) {
        ++unpaired_;
        o = s.open.erase(o);
      } else {
        ++o;
      }
    }
  }
}

void Oracle::paint_live(std::int64_t from, std::int64_t to, std::vector<std::uint8_t>& out) const {
  out.assign(static_cast<std::size_t>(std::max<std::int64_t>(0, index(to) - index(from))), 0);
  auto paint = [&](std::int64_t a, std::int64_t b, std::uint8_t mask) {
    for (std::int64_t t = std::max(a, from); t < std::min(b, to); t += 1000) {
      out[static_cast<std::size_t>(index(t) - index(from))] |= mask;
    }
  };
  for (const auto& i : closed_)
    paint(i.a, i.b, i.mask);
  for (const auto& s : sources_) {
    for (const auto& [key, o] : s.open) {
      if (!o.orphan) paint(o.begin_eff, s.wm, o.mask & 0x3F);
    }
  }
}

std::vector<WindowMetrics> Oracle::windows() const {
  bool finished = !sources_.empty();
  std::int64_t end = kNone;
  for (const auto& s : sources_) {
    finished = finished && s.finished;
    end = std::max({end, s.final_at, s.wm});
  }
  const bool real = real_device();
  const std::int64_t res = config_.resolution_ns;
  const std::int64_t t = finished ? -floor_to(-end, res) : floor_to(wm_, res);

  // The mask of every microsecond of [start, t).
  std::vector<std::uint8_t> mask;
  if (t > start_) {
    const std::int64_t live_from = std::clamp(horizon_ == kNone ? start_ : horizon_, start_, t);
    mask.assign(final_.begin(), final_.begin() + index(live_from));
    std::vector<std::uint8_t> live;
    paint_live(live_from, t, live);
    mask.insert(mask.end(), live.begin(), live.end());
  }

  const std::vector<std::pair<std::int64_t, bool>> steps = counted_steps();

  // Time per class combination over each window, from one backward pass:
  // windows are suffixes of [start, t).
  std::vector<std::int64_t> lengths = config_.windows_ns;
  lengths.push_back(0);
  std::vector<std::int64_t> lows;
  for (const std::int64_t w : lengths)
    lows.push_back(w == 0 ? start_ : std::max(t - w, start_));
  std::vector<std::array<std::int64_t, 64>> hists(lengths.size());
  {
    std::array<std::int64_t, 64> hist{};
    std::vector<std::size_t> order(lengths.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return lows[a] > lows[b]; });
    std::int64_t u = t;
    for (const std::size_t i : order) {
      for (; u > lows[i]; u -= 1000)
        hist[mask[static_cast<std::size_t>(index(u - 1000))] & 0x3F] += 1000;
      hists[i] = hist;
    }
  }
  std::vector<WindowMetrics> out;
  for (std::size_t wi = 0; wi < lengths.size(); ++wi) {
    const std::int64_t w = lengths[wi];
    const std::int64_t lo = lows[wi];
    std::int64_t n[13] = {};
    for (int mm = 0; mm < 64; ++mm) {
      const std::int64_t len = hists[wi][static_cast<std::size_t>(mm)];
      const bool c = mm & kC, d = mm & kD, f = mm & kF, a = mm & kA, i = mm & kI, k = mm & kM;
      const bool q[13] = {
          c,       a,       i,     f, k, d, a && !c, i && !c, c && !a && !i, (a || i) && !c,
          f && !d, f && !c, a && i};
      for (int j = 0; j < 13; ++j)
        n[j] += q[j] ? len : 0;
    }
    WindowMetrics m;
    m.window_ns = w;
    m.start_ns = lo;
    m.end_ns = std::max(lo, finished ? std::min(t, end) : t);
    const std::int64_t wall = m.end_ns - m.start_ns;
    auto sec = [](std::int64_t ns) { return static_cast<double>(ns) / 1e9; };
    m.wall_seconds = sec(wall);
    m.compute_seconds = sec(n[0]);
    m.app_io_seconds = sec(n[1]);
    m.io_seconds = sec(n[2]);
    m.fetch_seconds = sec(n[3]);
    m.comm_seconds = sec(n[4]);
    m.unoverlapped_app_io_seconds = sec(n[6]);
    m.unoverlapped_io_seconds = sec(n[7]);
    m.unoverlapped_compute_seconds = sec(n[8]);
    m.unoverlapped_all_io_seconds = sec(n[9]);
    const std::int64_t device = real ? n[5] : n[0];
    const std::int64_t stall = real ? n[10] : n[11];
    m.device_busy_seconds = sec(device);
    m.data_stall_seconds = sec(stall);
    m.overlap_ratio = n[1] > 0 ? 1.0 - static_cast<double>(n[6]) / static_cast<double>(n[1]) : kNaN;
    m.device_idle_ratio =
        wall > 0 ? 1.0 - static_cast<double>(device) / static_cast<double>(wall) : kNaN;
    m.data_stall_ratio = wall > 0 ? static_cast<double>(stall) / static_cast<double>(wall) : kNaN;
    m.loader_io_seconds = sec(n[12]);
    m.loader_io_ratio = n[1] > 0 ? static_cast<double>(n[12]) / static_cast<double>(n[1]) : kNaN;

    std::vector<std::int64_t> durations;
    double samples = 0;
    std::uint64_t count = 0;
    const std::int64_t step_lo = w == 0 ? std::numeric_limits<std::int64_t>::min() : t - w;
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const std::int64_t ts = steps[s].first;
      if (ts < step_lo || ts >= t || !steps[s].second) continue;
      ++count;
      if (s > 0) durations.push_back(ts - steps[s - 1].first);
      samples += batch_size_at(ts);
    }
    m.steps = count;
    m.step_seconds_p50 = percentile(durations, 0.5);
    m.step_seconds_p95 = percentile(durations, 0.95);
    m.steps_per_second = wall > 0 ? static_cast<double>(count) / sec(wall) : kNaN;
    m.samples_per_second = wall > 0 && !sizes_.empty() ? samples / sec(wall) : kNaN;

    const VerdictThresholds& v = config_.verdict;
    const double busy = v.idle_busy_ratio * m.wall_seconds;
    if (!(m.wall_seconds > 0) || (m.compute_seconds < busy && m.device_busy_seconds < busy &&
                                  m.app_io_seconds < busy && m.io_seconds < busy && count == 0)) {
      m.verdict = Verdict::kIdle;
    } else if (m.data_stall_ratio >= v.data_stall_ratio) {
      m.verdict = Verdict::kDataStarved;
    } else if (m.unoverlapped_all_io_seconds / m.wall_seconds >= v.unoverlapped_io_ratio) {
      m.verdict = Verdict::kIoBound;
    } else if (m.device_idle_ratio >= v.device_idle_ratio) {
      m.verdict = Verdict::kHostBound;
    } else {
      m.verdict = Verdict::kWellOverlapped;
    }
    // I/O is captured when the rank has IO-class time anywhere in [start, t).
    const auto& totals = hists.back();
    for (int mm = 0; mm < 64; ++mm)
      m.io_captured = m.io_captured || ((mm & kI) && totals[static_cast<std::size_t>(mm)] > 0);
    std::int64_t io[4] = {};  // read bytes, write bytes, read calls, write calls
    for (const IoCall& call : io_calls_) {
      if (call.end < step_lo || call.end >= t) continue;
      io[call.write ? 1 : 0] += call.bytes;
      io[call.write ? 3 : 2] += 1;
    }
    const bool io_rates = wall > 0 && m.io_captured;
    m.read_bytes_per_second = io_rates ? static_cast<double>(io[0]) / sec(wall) : kNaN;
    m.write_bytes_per_second = io_rates ? static_cast<double>(io[1]) / sec(wall) : kNaN;
    m.read_ops_per_second = io_rates ? static_cast<double>(io[2]) / sec(wall) : kNaN;
    m.write_ops_per_second = io_rates ? static_cast<double>(io[3]) / sec(wall) : kNaN;
    // Scenarios carry no launch records: launches are not captured.
    m.launch_seconds = m.launch_delay_seconds = m.launch_idle_ratio = kNaN;
    if (m.verdict == Verdict::kHostBound) {
      m.cause = Cause::kUnknown;
    } else if (m.verdict != Verdict::kDataStarved) {
      m.cause = Cause::kNone;
    } else if (!m.io_captured || n[1] == 0) {
      m.cause = Cause::kUnknown;
    } else {
      m.cause = m.loader_io_ratio >= v.storage_io_ratio ? Cause::kStorage : Cause::kPreprocessing;
    }
    out.push_back(m);
  }
  return out;
}

bool Oracle::real_device() const {
  for (const auto& s : sources_) {
    if (s.device == DeviceSource::kCupti || s.device == DeviceSource::kCudaEvents ||
        s.device_events) {
      return true;
    }
  }
  return false;
}

std::vector<std::pair<std::int64_t, bool>> Oracle::counted_steps() const {
  std::vector<std::pair<std::int64_t, bool>> steps = steps_;
  std::stable_sort(steps.begin(), steps.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::erase_if(steps, [&](const auto& s) { return s.second && s.first >= first_mark_; });
  bool fallback_before = false;
  for (auto& [ts, is_step] : steps) {
    const bool fallback = is_step;
    is_step = true;
    if (!fallback && ts == first_mark_ && fallback_before) {
      is_step = false;  // ends the step its fetch counted
      fallback_before = false;
    }
    fallback_before = fallback_before || fallback;
  }
  return steps;
}

double Oracle::batch_size_at(std::int64_t ts) const {
  std::vector<std::pair<std::int64_t, double>> sizes = sizes_;
  std::stable_sort(sizes.begin(), sizes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  double size = 0;
  for (const auto& [at, v] : sizes) {
    if (at <= ts) size = v;
  }
  return size;
}

FinalizedTotals Oracle::finalized() const {
  FinalizedTotals f;
  const std::int64_t h = horizon_ == kNone ? start_ : std::max(horizon_, start_);
  f.horizon_ns = h;
  bool finished = !sources_.empty();
  std::int64_t end = kNone;
  for (const auto& s : sources_) {
    finished = finished && s.finished;
    end = std::max({end, s.final_at, s.wm});
  }
  f.wall_ns = (finished ? std::clamp(end, start_, h) : h) - start_;
  std::int64_t n[12] = {};
  for (std::int64_t u = 0; u < index(h); ++u) {
    const std::uint8_t mm = final_[static_cast<std::size_t>(u)];
    const bool c = mm & kC, d = mm & kD, fe = mm & kF, a = mm & kA, i = mm & kI, k = mm & kM;
    const bool q[12] = {
        c, a, i, fe, k, d, a && !c, i && !c, c && !a && !i, (a || i) && !c, fe && !d, fe && !c};
    for (int j = 0; j < 12; ++j)
      n[j] += q[j] ? 1000 : 0;
  }
  f.compute_ns = n[0];
  f.app_io_ns = n[1];
  f.io_ns = n[2];
  f.fetch_ns = n[3];
  f.comm_ns = n[4];
  f.unoverlapped_app_io_ns = n[6];
  f.unoverlapped_io_ns = n[7];
  f.unoverlapped_compute_ns = n[8];
  f.unoverlapped_all_io_ns = n[9];
  f.device_busy_ns = final_device_ns_;
  f.data_stall_ns = final_stall_ns_;

  for (const IoCall& call : io_calls_) {
    if (horizon_ == kNone || call.end >= horizon_) continue;
    (call.write ? f.write_bytes : f.read_bytes) += call.bytes;
    (call.write ? f.write_ops : f.read_ops) += 1;
  }

  const auto& bounds = config_.step_histogram_bounds_ns;
  f.step_buckets.assign(bounds.size(), 0);
  const auto steps = counted_steps();
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const std::int64_t ts = steps[s].first;
    if (horizon_ == kNone || ts >= horizon_) break;
    if (!steps[s].second) continue;
    ++f.steps;
    f.samples += batch_size_at(ts);
    if (s == 0) continue;
    const std::int64_t duration = ts - steps[s - 1].first;
    ++f.step_durations;
    f.step_duration_sum_ns += duration;
    for (std::size_t b = 0; b < bounds.size(); ++b)
      f.step_buckets[b] += duration <= bounds[b] ? 1 : 0;
  }
  return f;
}

std::vector<TopFiles> Oracle::top_files() const {
  bool finished = !sources_.empty();
  std::int64_t end = kNone;
  for (const auto& s : sources_) {
    finished = finished && s.finished;
    end = std::max({end, s.final_at, s.wm});
  }
  const std::int64_t res = config_.resolution_ns;
  const std::int64_t t = finished ? -floor_to(-end, res) : floor_to(wm_, res);
  struct Sums {
    std::int64_t io = 0, read = 0, write = 0, ops = 0;
    void add(const Sums& s) {
      io += s.io;
      read += s.read;
      write += s.write;
      ops += s.ops;
    }
  };
  const auto path_of = [&](std::size_t source, std::uint32_t file) -> std::string_view {
    const Source& src = sources_[source];
    if (auto it = src.files.find(file); it != src.files.end()) return it->second;
    for (const Source& parent : sources_) {
      if (parent.pid != src.ppid) continue;
      if (auto it = parent.files.find(file); it != parent.files.end()) return it->second;
    }
    return "<unknown file>";
  };
  std::vector<TopFiles> out;
  std::vector<std::int64_t> windows = config_.windows_ns;
  windows.push_back(0);  // the totals
  for (const std::int64_t w : windows) {
    // Per cell of the calls' ends in [t - w, t) (totals: before t): per (source, file).
    std::map<std::int64_t, std::map<std::pair<std::size_t, std::uint32_t>, Sums>> cells;
    for (const FileCall& c : file_calls_) {
      if ((w != 0 && c.end < t - w) || c.end >= t) continue;
      Sums& s = cells[floor_to(c.end, res)][{c.source, c.file}];
      s.io += c.duration;
      s.ops += 1;
      (c.direction == 1 ? s.read : s.write) += c.direction == 0 ? 0 : c.bytes;
    }
    std::map<std::string_view, Sums> by_path;
    Sums other;
    // The totals keep the first top_files_total_files files finalized (by
    // cell, then source, then file), the rest in "other".
    std::set<std::pair<std::size_t, std::uint32_t>> kept;
    for (const auto& [cell, files] : cells) {
      std::vector<std::pair<std::pair<std::size_t, std::uint32_t>, Sums>> rows(files.begin(),
                                                                               files.end());
      const bool finalized = horizon_ != kNone && cell < horizon_;
      if (w == 0) {
        for (const auto& [key, sums] : rows) {
          if (finalized && !kept.contains(key) && kept.size() >= config_.top_files_total_files) {
            other.add(sums);
            continue;
          }
          if (finalized) kept.insert(key);
          by_path[path_of(key.first, key.second)].add(sums);
        }
        continue;
      }
      std::stable_sort(rows.begin(), rows.end(),
                       [](const auto& a, const auto& b) { return a.second.io > b.second.io; });
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (finalized && i >= config_.top_files_per_cell) {
          other.add(rows[i].second);
        } else {
          by_path[path_of(rows[i].first.first, rows[i].first.second)].add(rows[i].second);
        }
      }
    }
    std::vector<std::pair<std::string_view, Sums>> sorted(by_path.begin(), by_path.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second.io > b.second.io; });
    TopFiles top;
    top.window_ns = w;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      const Sums& s = sorted[i].second;
      if (i < config_.top_files_shown) {
        top.files.push_back(
            FileIoEntry{std::string(sorted[i].first), s.io, s.read, s.write, s.ops});
      } else {
        other.add(s);
      }
    }
    top.other = FileIoEntry{"", other.io, other.read, other.write, other.ops};
    out.push_back(std::move(top));
  }
  return out;
}

std::vector<TopKernels> Oracle::top_kernels() const {
  bool finished = !sources_.empty();
  std::int64_t end = kNone;
  for (const auto& s : sources_) {
    finished = finished && s.finished;
    end = std::max({end, s.final_at, s.wm});
  }
  const std::int64_t res = config_.resolution_ns;
  const std::int64_t t = finished ? -floor_to(-end, res) : floor_to(wm_, res);
  struct Sums {
    std::int64_t ns = 0, count = 0;
    void add(const Sums& s) {
      ns += s.ns;
      count += s.count;
    }
  };
  std::vector<TopKernels> out;
  for (const std::int64_t w : config_.windows_ns) {
    // Per cell of the work's end in [t - w, t): per name id.
    std::map<std::int64_t, std::map<NameId, Sums>> cells;
    for (const KernelWork& k : kernel_work_) {
      if (k.end < t - w || k.end >= t) continue;
      Sums& s = cells[floor_to(k.end, res)][k.name];
      s.ns += k.duration;
      s.count += 1;
    }
    std::map<std::string_view, Sums> by_name;
    Sums other;
    for (const auto& [cell, kernels] : cells) {
      // By id, then stably by time: ties keep the lower id first.
      std::vector<std::pair<NameId, Sums>> rows(kernels.begin(), kernels.end());
      std::stable_sort(rows.begin(), rows.end(),
                       [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
      const bool finalized = horizon_ != kNone && cell < horizon_;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (finalized && i >= config_.top_kernels_per_cell) {
          other.add(rows[i].second);
        } else {
          by_name[names_.str(rows[i].first)].add(rows[i].second);
        }
      }
    }
    // By name, then stably by time: ties keep the lower name first.
    std::vector<std::pair<std::string_view, Sums>> sorted(by_name.begin(), by_name.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    TopKernels top;
    top.window_ns = w;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i < TopKernels::kTopKernelsShown) {
        top.kernels.push_back(
            KernelEntry{std::string(sorted[i].first), sorted[i].second.ns, sorted[i].second.count});
      } else {
        other.add(sorted[i].second);
      }
    }
    top.other = KernelEntry{"", other.ns, other.count};
    out.push_back(std::move(top));
  }
  return out;
}

}  // namespace stallwatch::collector::testing
