// SPDX-License-Identifier: MIT
#include "scenario.h"

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "stallwatch/event_flags.h"
#include "stallwatch/protocol.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

struct Kind {
  const char* cat;
  const char* name;
};

// Region kinds by class; "fetch" kinds only make sense on the main thread.
constexpr Kind kKinds[] = {
    {"compute", "forward"}, {"compute", "backward"},  {"ai_framework", "step"},
    {"gpu", "kernel"},      {"loader", "fetch.iter"}, {"dataloader", "fetch"},
    {"POSIX", "read"},      {"STDIO", "fwrite"},      {"dataloader", "collate"},
    {"data", "decode"},     {"comm", "allreduce"},    {"pipeline", "epoch"},
    {"misc", "other"},
};

struct PlannedEvent {
  Event event;
  std::int64_t ready_us;  // when the agent has it: the end for Complete
  std::size_t order;      // emission order within the thread
};

struct Thread {
  std::uint32_t tid;
  std::vector<PlannedEvent> events;
  std::uint32_t next_region = 1;
};

struct Source {
  SourceInfo info;
  std::vector<Thread> threads;
  std::int64_t end_us;
  std::int64_t kill_us;  // batches stop here (killed) or at end_us
  bool final;
};

class Generator {
 public:
  Generator(std::uint32_t seed, const ScenarioOptions& o, NameTable& names)
      : rng_(seed), o_(o), names_(names) {}

  Scenario run();

 private:
  std::int64_t uni(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  // Some times land exactly on the 1 ms grid, where windows and the horizon cut.
  std::int64_t snap(std::int64_t t_us) { return chance(0.2) ? t_us / 1000 * 1000 : t_us; }
  const Kind& pick_kind(bool main_thread) {
    while (true) {
      const Kind& k = kKinds[uni(0, std::size(kKinds) - 1)];
      if (!main_thread && std::string(k.name).find("fetch") != std::string::npos && chance(0.7)) {
        continue;
      }
      return k;
    }
  }
  Event make(EventKind kind, const Kind& k, std::int64_t ts_us, std::uint32_t tid) {
    Event e;
    e.kind = kind;
    e.cat = names_.intern(k.cat);
    e.name = names_.intern(k.name);
    e.ts_ns = start_ns_ + us(ts_us);
    e.tid = tid;
    return e;
  }
  void push(Thread& t, Event e, std::int64_t ready_us) {
    t.events.push_back(PlannedEvent{e, ready_us, t.events.size()});
  }
  // A region [a, b) with up to `depth` levels of children inside it.
  void region(Thread& t, bool main_thread, std::int64_t a, std::int64_t b, int depth,
              bool may_stay_open);
  void fill_thread(Thread& t, bool main_thread, std::int64_t end_us);
  void add_marks(Thread& t, std::int64_t end_us);
  // The posix_file marks naming file ids 1-4 of source `source` (two ids
  // of a source can name one path, sources share paths); the last comes
  // mid-run, after calls on its file. Derived, not drawn.
  void name_files(Thread& t, int source, std::int64_t end_us);
  std::vector<DecodedBatch> batches(Source& s);

  std::mt19937 rng_;
  ScenarioOptions o_;
  NameTable& names_;
  void pause(Source& s, std::int64_t at_us, std::int64_t gap_us);

  std::int64_t start_ns_ = kT0;
  bool marks_ = false;
  std::int64_t pause_at_us_ = -1;
};

void Generator::region(Thread& t, bool main_thread, std::int64_t a, std::int64_t b, int depth,
                       bool may_stay_open) {
  const Kind& k = pick_kind(main_thread);
  const bool complete = chance(0.5);
  const std::uint32_t id = t.next_region++;
  const bool stays_open = may_stay_open && !complete && chance(0.15);
  // A POSIX or stdio call's file id (0: none; 5 is named by no mark) and,
  // for some reads, another call on the file; derived, not drawn.
  const bool io_call = std::string_view(k.cat) == "POSIX" || std::string_view(k.cat) == "STDIO";
  const auto file = static_cast<std::uint32_t>((b * 3 + id) % 6);
  const Kind& call =
      io_call && std::string_view(k.name) == "read" && id % 5 == 0 ? Kind{"POSIX", "lseek"} : k;
  if (!complete) {
    Event e = make(EventKind::kBegin, call, a, t.tid);
    e.region_id = id;
    if (io_call) e.value = file;
    push(t, e, a);
  }
  if (depth > 0 && b - a > 40) {
    std::int64_t cur = a + uni(0, (b - a) / 4);
    const int children = static_cast<int>(uni(0, 2));
    for (int c = 0; c < children && b - cur > 20; ++c) {
      const std::int64_t len = uni(1, (b - cur) / 2);
      region(t, main_thread, cur, cur + len, depth - 1, false);
      cur += len + uni(0, (b - cur - len) / 2);
    }
  }
  if (complete) {
    Event e = make(EventKind::kComplete, call, a, t.tid);
    e.dur_ns = us(b - a);
    // A read or write call recorded whole carries the bytes it moved and its
    // file (every other one: an agent that records none); derived, not drawn.
    if (io_call && id % 2 == 1) {
      e.flags |= wire::kEventFlagCompleteValue;
      e.value = (b * 41 + id * 4099) % (1 << 20);
      e.region_id = file;
    }
    // Device work carries the id of the launch that would point at it, under
    // one of a few names; derived, not drawn.
    if (std::string_view(k.cat) == "gpu") {
      static constexpr std::string_view kWork[] = {"kernel", "gemm", "memcpy HtoD", "memset"};
      e.name = names_.intern(kWork[(b * 5 + id) % std::size(kWork)]);
      e.flags |= wire::kEventFlagCorrelation;
      e.region_id = id;
    }
    push(t, e, b);
  } else if (!stays_open) {
    Event e = make(EventKind::kEnd, Kind{"", ""}, b, t.tid);
    e.region_id = id;
    // A read or write call's End carries the bytes it moved; derived, not
    // drawn, so that the random sequence stays what it was.
    if (std::string_view(k.cat) == "POSIX" || std::string_view(k.cat) == "STDIO")
      e.value = (b * 37 + id * 4099) % (1 << 20);
    // Some fetch waits end their loop, some are calls that returned a
    // generator: neither brought an item (derived, like the bytes).
    if (std::string_view(k.name).find("fetch") != std::string_view::npos) {
      const std::int64_t pick = (b * 7 + id * 13) % 16;
      e.value = pick == 0 ? wire::kEndLoopExhausted : pick == 1 ? wire::kEndNoItem : 0;
    }
    push(t, e, b);
  }
}

void Generator::fill_thread(Thread& t, bool main_thread, std::int64_t end_us) {
  std::int64_t cur = uni(0, 3000);
  while (true) {
    const std::int64_t b = snap(cur + uni(1, 8000));
    if (b > end_us) break;
    if (b <= cur) {
      cur += 1000;
      continue;
    }
    region(t, main_thread, cur, b, static_cast<int>(uni(0, 2)), true);
    cur = snap(b + uni(0, 2500));
  }
  // A few free-floating regions overlapping whatever is there.
  const int extra = static_cast<int>(uni(0, 3));
  for (int i = 0; i < extra; ++i) {
    const std::int64_t a = uni(0, end_us - 2);
    const std::int64_t b = std::min(end_us, a + uni(1, 6000));
    Event e = make(EventKind::kComplete, pick_kind(main_thread), a, t.tid);
    e.dur_ns = us(b - a);
    push(t, e, b);
  }
}

void Generator::add_marks(Thread& t, std::int64_t end_us) {
  if (marks_) {
    std::int64_t value = 0;
    for (std::int64_t at = uni(0, 4000); at < end_us; at += uni(500, 6000)) {
      at = snap(at);
      Event e = make(EventKind::kMark, Kind{"", "step"}, at, t.tid);
      e.value = value++;
      push(t, e, at);
    }
  }
  if (chance(0.3)) {
    const std::int64_t at = uni(0, end_us - 1);
    Event e = make(EventKind::kMark, Kind{"", "epoch.start"}, at, t.tid);
    e.value = 1;
    push(t, e, at);
  }
  if (chance(0.5)) {
    for (std::int64_t at = uni(0, 10000); at < end_us; at += uni(3000, 20000)) {
      Event e = make(EventKind::kCounter, Kind{"", "batch_size"}, at, t.tid);
      e.value = uni(1, 64);
      push(t, e, at);
    }
  }
}

void Generator::name_files(Thread& t, int source, std::int64_t end_us) {
  for (std::uint32_t f = 1; f <= 4; ++f) {
    const std::int64_t at = f == 4 ? end_us / 2 : 0;
    const std::string path =
        "/data/" + std::to_string(f * static_cast<std::uint32_t>(source + 1) % 5);
    Event e = make(EventKind::kMark, Kind{"posix_file", path.c_str()}, at, t.tid);
    e.value = f;
    push(t, e, at);
  }
}

// The batches a source sends: every 0.3-2.5 ms, each thread flushing what is
// ready unless it holds its buffer back this time.
std::vector<DecodedBatch> Generator::batches(Source& s) {
  for (auto& t : s.threads) {
    std::stable_sort(
        t.events.begin(), t.events.end(),
        [](const PlannedEvent& a, const PlannedEvent& b) { return a.ready_us < b.ready_us; });
  }
  std::vector<std::size_t> next(s.threads.size(), 0);
  std::vector<DecodedBatch> out;
  std::uint64_t seq = 0;
  std::int64_t at = uni(0, 1000);
  const std::int64_t stop = std::min(s.end_us, s.kill_us);
  while (true) {
    const bool last = at >= stop;
    if (last) at = stop;
    DecodedBatch b;
    b.source = s.info;
    b.seq = seq++;
    b.sent_at_ns = start_ns_ + us(at);
    for (std::size_t i = 0; i < s.threads.size(); ++i) {
      if (!last && o_.per_thread_buffering && chance(0.25)) continue;
      auto& evs = s.threads[i].events;
      while (next[i] < evs.size() && evs[next[i]].ready_us <= at)
        b.events.push_back(evs[next[i]++].event);
    }
    b.final = last && s.final && s.kill_us >= s.end_us;
    out.push_back(std::move(b));
    if (last) break;
    at = std::max(at + 1, snap(at + uni(300, 2500)));
    if (pause_at_us_ >= 0 && at > pause_at_us_ && at < pause_at_us_ + o_.pause_us) {
      at = pause_at_us_ + o_.pause_us;
    }
  }
  return out;
}

// Shifts everything at or after `at_us` by `gap_us`.
void Generator::pause(Source& s, std::int64_t at_us, std::int64_t gap_us) {
  const auto shift = [&](std::int64_t t) { return t >= at_us ? t + gap_us : t; };
  for (auto& t : s.threads) {
    for (auto& p : t.events) {
      const std::int64_t ts = (p.event.ts_ns - start_ns_) / 1000;
      if (p.event.kind == EventKind::kComplete) {
        const std::int64_t end = ts + p.event.dur_ns / 1000;
        p.event.dur_ns = us(shift(end) - shift(ts));
      }
      p.event.ts_ns = start_ns_ + us(shift(ts));
      p.ready_us = shift(p.ready_us);
    }
  }
  s.end_us = shift(s.end_us);
  s.kill_us = shift(s.kill_us);
}

Scenario Generator::run() {
  Scenario sc;
  sc.start_ns = start_ns_;
  marks_ = chance(0.5);
  const std::int64_t life = uni(o_.life_us_min, o_.life_us_max);
  const int n_sources = static_cast<int>(uni(1, o_.max_sources));
  const bool cupti = chance(0.3);
  std::vector<Source> sources;
  for (int i = 0; i < n_sources; ++i) {
    Source s;
    s.info.job = "prop";
    s.info.rank = 0;
    s.info.host = "host";
    s.info.pid = 100 + i;
    s.info.ppid = i == 0 ? 1 : 100;
    s.info.role = i == 0 ? ProcessRole::kMain : ProcessRole::kWorker;
    s.info.start_ns = start_ns_;
    s.info.device_source = i == 0 && cupti ? DeviceSource::kCupti : DeviceSource::kNone;
    s.end_us = life - uni(0, 2000);
    s.kill_us = i > 0 && chance(0.25) ? uni(1000, s.end_us) : s.end_us + 1;
    s.final = chance(0.5);
    const int n_threads = static_cast<int>(uni(1, o_.max_threads));
    for (int j = 0; j < n_threads; ++j) {
      Thread t;
      t.tid = j == 0 ? static_cast<std::uint32_t>(s.info.pid)
                     : static_cast<std::uint32_t>(s.info.pid * 10 + j);
      fill_thread(t, i == 0 && j == 0, s.end_us);
      if (i == 0 && j == 0) add_marks(t, s.end_us);
      if (j == 0) name_files(t, i, s.end_us);
      s.threads.push_back(std::move(t));
    }
    sources.push_back(std::move(s));
  }
  if (o_.pause_us > 0) {
    pause_at_us_ = life / 2;
    for (auto& s : sources)
      pause(s, pause_at_us_, o_.pause_us);
  }

  struct Delivery {
    std::int64_t arrival;
    std::uint64_t order;
    DecodedBatch batch;
  };
  std::vector<Delivery> all;
  std::uint64_t order = 0;
  for (auto& s : sources) {
    std::int64_t prev_arrival = 0;
    for (auto& b : batches(s)) {
      if (o_.lost_batch_share > 0 && chance(o_.lost_batch_share)) continue;
      std::int64_t delay = o_.max_delay_us > 0 ? uni(0, o_.max_delay_us) : 0;
      if (o_.late_batch_share > 0 && chance(o_.late_batch_share)) {
        delay += uni(0, 3 * std::max<std::int64_t>(o_.max_delay_us, 5000));
      }
      std::int64_t arrival = (b.sent_at_ns - start_ns_) / 1000 + delay;
      if (!o_.reorder_within_source) arrival = std::max(arrival, prev_arrival);
      prev_arrival = arrival;
      all.push_back(Delivery{arrival, order++, std::move(b)});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Delivery& a, const Delivery& b) {
    return a.arrival != b.arrival ? a.arrival < b.arrival : a.order < b.order;
  });
  for (auto& d : all)
    sc.deliveries.push_back(std::move(d.batch));
  for (std::size_t i = uni(0, 6); i < sc.deliveries.size(); i += uni(3, 12)) {
    sc.ticks_after.push_back(i);
  }
  sc.ticks_after.push_back(sc.deliveries.size() - 1);
  return sc;
}

}  // namespace

Scenario make_scenario(std::uint32_t seed, const ScenarioOptions& options, NameTable& names) {
  return Generator(seed, options, names).run();
}

}  // namespace stallwatch::collector::testing
