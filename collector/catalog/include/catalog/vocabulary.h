// SPDX-License-Identifier: MIT
#pragma once

// The words stallwatch judges a rank with, each once: the verdicts, the rank
// states and the device sources, with the name the API uses, a label for
// people, a tone (how alarming it is) and a one-line meaning. The engine
// decides which applies and writes the names; the terminal dashboard styles
// and explains them from here; the web page gets the same table as the
// JavaScript module /js/vocabulary.js, generated from this header at build
// time (dashboard/web/CMakeLists.txt).
//
// Meanings are written as clauses ("the device idles while ..."): lower case,
// no full stop; the web page makes a sentence of them. Header-only and
// constexpr; no dependencies.

#include <array>
#include <cstdint>
#include <string_view>

namespace stallwatch::catalog {

// How a term reads: bad (red, a problem to act on), warn (amber, worth a
// look), ok (fine), dim (nothing is happening).
enum class Tone : std::uint8_t { kOk, kWarn, kBad, kDim };

// "ok", "warn", "bad", "dim"
constexpr std::string_view to_string(Tone t) {
  switch (t) {
    case Tone::kOk:
      return "ok";
    case Tone::kWarn:
      return "warn";
    case Tone::kBad:
      return "bad";
    case Tone::kDim:
      return "dim";
  }
  return "ok";
}

// The values are the engine's (stored in snapshots, compared by alerts).
enum class Verdict : std::uint8_t {
  kIdle = 0,
  kDataStarved = 1,
  kIoBound = 2,
  kHostBound = 3,
  kWellOverlapped = 4,
  kWaitingForPeers = 5,
};
enum class RankState : std::uint8_t { kActive = 0, kSilent = 1, kFinished = 2 };
// Why a data-starved rank waits (docs/api.md, "Cause"): its loader's time is
// mostly inside POSIX/STDIO I/O (storage) or outside it (preprocessing), or
// no I/O is captured for the rank (unknown). Why a host-bound rank's device
// idles: the host is launching kernels (launch-bound), or the measured time
// does not say (unknown). kNone for any other verdict.
enum class Cause : std::uint8_t {
  kNone = 0,
  kStorage = 1,
  kPreprocessing = 2,
  kUnknown = 3,
  kLaunchBound = 4
};
// The effective source of a rank's DEVICE_BUSY intervals: what its sources
// declare (CUPTI, CUDA events), else its own events when some of them are
// device busy (a trace's GPU kernels, or a [classes] rule), else compute.
enum class DeviceSignal : std::uint8_t {
  kComputeProxy = 0,
  kCupti = 1,
  kCudaEvents = 2,
  kNvml = 3,
  kTrace = 4
};

template <class Id>
struct Term {
  Id id;
  std::string_view name;   // in the API, Prometheus labels and alert annotations
  std::string_view label;  // on screen
  Tone tone;
  std::string_view meaning;
};

// Problems first: the order help screens and legends list them in.
inline constexpr std::array<Term<Verdict>, 6> kVerdicts{{
    {Verdict::kDataStarved, "data-starved", "data-starved", Tone::kBad,
     "the device idles while the training loop waits for the next batch"},
    {Verdict::kIoBound, "io-bound", "I/O-bound", Tone::kWarn,
     "application I/O is not hidden behind compute"},
    {Verdict::kWaitingForPeers, "waiting-for-peers", "waiting for peers", Tone::kWarn,
     "the rank waits in collectives for slower ranks of its job"},
    {Verdict::kHostBound, "host-bound", "host-bound", Tone::kWarn,
     "the device is idle but not waiting for data: host-side work is the limit"},
    {Verdict::kWellOverlapped, "well-overlapped", "well-overlapped", Tone::kOk,
     "data loading overlaps compute; the device is kept busy"},
    {Verdict::kIdle, "idle", "idle", Tone::kDim, "no training activity in this window"},
}};

inline constexpr std::array<Term<RankState>, 3> kRankStates{{
    {RankState::kActive, "active", "active", Tone::kOk, "the rank is sending data"},
    {RankState::kSilent, "silent", "silent", Tone::kWarn,
     "no data from the rank for longer than silent_after"},
    {RankState::kFinished, "finished", "finished", Tone::kDim,
     "every process of the rank sent its final batch"},
}};

inline constexpr std::array<Term<DeviceSignal>, 5> kDeviceSignals{{
    {DeviceSignal::kCupti, "cupti", "cupti", Tone::kOk,
     "device busy from every kernel, memcpy and memset (CUPTI)"},
    {DeviceSignal::kCudaEvents, "cuda-events", "cuda-events", Tone::kOk,
     "device busy from CUDA events around forward, backward and step"},
    {DeviceSignal::kTrace, "trace", "trace", Tone::kOk,
     "device busy from the rank's own device events: the GPU kernels, copies and memsets it "
     "recorded, or what a [classes] rule maps to device busy"},
    {DeviceSignal::kNvml, "nvml", "nvml", Tone::kOk, "device busy from NVML utilization samples"},
    {DeviceSignal::kComputeProxy, "compute-proxy", "compute proxy", Tone::kWarn,
     "no device signal: compute stands in for device busy"},
}};

inline constexpr std::array<Term<Cause>, 5> kCauses{{
    {Cause::kStorage, "storage", "storage", Tone::kBad,
     "the data loader spends most of its time inside I/O calls: storage is too slow"},
    {Cause::kPreprocessing, "preprocessing", "preprocessing", Tone::kBad,
     "the data loader spends most of its time outside I/O calls: decoding and transforms are "
     "the limit"},
    {Cause::kLaunchBound, "launch-bound", "launch-bound", Tone::kBad,
     "the device idles while the host launches kernels: kernels too small or too many for "
     "their launch cost"},
    {Cause::kUnknown, "unknown", "cause unknown", Tone::kDim,
     "the measured time does not tell the cause: no I/O is captured for a data-starved rank "
     "(run with --posix), no launch records explain a host-bound one (CUPTI)"},
    {Cause::kNone, "none", "none", Tone::kDim, "the rank is neither data-starved nor host-bound"},
}};

// The term of an id. Every id has one (checked below).
template <class Id, std::size_t N>
constexpr const Term<Id>& term_in(const std::array<Term<Id>, N>& terms, Id id) {
  for (const Term<Id>& t : terms) {
    if (t.id == id) return t;
  }
  return terms.front();
}
constexpr const Term<Verdict>& term(Verdict v) {
  return term_in(kVerdicts, v);
}
constexpr const Term<RankState>& term(RankState s) {
  return term_in(kRankStates, s);
}
constexpr const Term<DeviceSignal>& term(DeviceSignal d) {
  return term_in(kDeviceSignals, d);
}
constexpr const Term<Cause>& term(Cause c) {
  return term_in(kCauses, c);
}

// The term called `name` (as the API writes it), or nullptr.
template <class Id, std::size_t N>
constexpr const Term<Id>* find_term(const std::array<Term<Id>, N>& terms, std::string_view name) {
  for (const Term<Id>& t : terms) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

namespace detail {
// Each of the values 0..N-1 once, and no two names alike.
template <class Id, std::size_t N>
constexpr bool complete(const std::array<Term<Id>, N>& terms) {
  for (std::size_t v = 0; v < N; ++v) {
    int found = 0;
    for (const Term<Id>& t : terms)
      found += static_cast<std::size_t>(t.id) == v ? 1 : 0;
    if (found != 1) return false;
    for (std::size_t w = v + 1; w < N; ++w) {
      if (terms[v].name == terms[w].name) return false;
    }
  }
  return true;
}
}  // namespace detail

static_assert(detail::complete(kVerdicts), "every Verdict needs exactly one term");
static_assert(detail::complete(kRankStates), "every RankState needs exactly one term");
static_assert(detail::complete(kDeviceSignals), "every DeviceSignal needs exactly one term");
static_assert(detail::complete(kCauses), "every Cause needs exactly one term");

}  // namespace stallwatch::catalog
