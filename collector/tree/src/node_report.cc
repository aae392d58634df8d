// SPDX-License-Identifier: MIT
#include "tree/node_report.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "snapshot_fields.h"

namespace stallwatch::collector {
namespace {

static_assert(std::endian::native == std::endian::little, "reports are little-endian");

constexpr std::array<std::uint8_t, 4> kMagic = {'S', 'W', 'N', 'R'};

template <class T>
concept Visited = requires {
  sizeof(detail::Fields<T>);
};

// Appends values in wire order: integers and doubles as their little-endian
// bytes, enumerations as one byte, strings and vectors as a 32-bit count and
// their elements, structs as their field lists.
class Writer {
 public:
  Writer(std::vector<std::uint8_t>& out, std::uint16_t version) : out_(out), version_(version) {}

  std::uint16_t version() const { return version_; }

  template <class T>
  void operator()(const T& v) {
    if constexpr (std::is_enum_v<T>) {
      out_.push_back(static_cast<std::uint8_t>(v));
    } else if constexpr (std::is_same_v<T, bool>) {
      out_.push_back(v ? 1 : 0);
    } else if constexpr (std::is_arithmetic_v<T>) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
      out_.insert(out_.end(), p, p + sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      (*this)(static_cast<std::uint32_t>(v.size()));
      out_.insert(out_.end(), v.begin(), v.end());
    } else if constexpr (Visited<T>) {
      detail::Fields<T>::visit(*this, v);
    } else {
      write_range(v);
    }
  }

 private:
  template <class E, std::size_t N>
  void write_range(const std::array<E, N>& a) {
    for (const E& e : a)
      (*this)(e);
  }
  template <class E>
  void write_range(const std::vector<E>& a) {
    (*this)(static_cast<std::uint32_t>(a.size()));
    for (const E& e : a)
      (*this)(e);
  }

  std::vector<std::uint8_t>& out_;
  std::uint16_t version_;
};

// Reads what Writer wrote; the first problem is kept in error() and every
// later read leaves its value untouched. A 64-bit integer or double outside
// +-2^62 is a problem too (in_range).
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}

  const std::string& error() const { return error_; }
  bool at_end() const { return pos_ == in_.size(); }
  std::uint16_t version() const { return version_; }
  void set_version(std::uint16_t version) { version_ = version; }

  template <class T>
  void operator()(T& v) {
    if (!error_.empty()) return;
    if constexpr (std::is_enum_v<T>) {
      std::uint8_t b = 0;
      (*this)(b);
      if (b > detail::enum_max<T>()) {
        fail("enumeration value out of range");
      } else {
        v = static_cast<T>(b);
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      std::uint8_t b = 0;
      (*this)(b);
      v = b != 0;
    } else if constexpr (std::is_arithmetic_v<T>) {
      if (!take(sizeof(T))) return;
      T read;
      std::memcpy(&read, in_.data() + pos_ - sizeof(T), sizeof(T));
      if (!in_range(read)) return fail("value out of range");
      v = read;
    } else if constexpr (std::is_same_v<T, std::string>) {
      std::uint32_t n = 0;
      (*this)(n);
      if (!take(n)) return;
      v.assign(reinterpret_cast<const char*>(in_.data()) + pos_ - n, n);
    } else if constexpr (Visited<T>) {
      detail::Fields<T>::visit(*this, v);
    } else {
      read_range(v);
    }
  }

 private:
  template <class E, std::size_t N>
  void read_range(std::array<E, N>& a) {
    for (E& e : a)
      (*this)(e);
  }
  template <class E>
  void read_range(std::vector<E>& a) {
    std::uint32_t n = 0;
    (*this)(n);
    // Every element takes at least one byte: a count past the end is a lie.
    if (n > in_.size() - pos_) return fail("count past the end");
    a.resize(n);
    for (E& e : a)
      (*this)(e);
  }
  // Times, counters and metrics a node's engine makes stay far inside
  // +-2^62 (2^62 ns is 146 years); the head adds and subtracts them (clock
  // offsets, ages, sums over ranks), which a value near the int64 limits
  // would overflow. NaN is a metric without a value; infinities are refused.
  template <class T>
  static bool in_range(T v) {
    constexpr std::int64_t kLimit = std::int64_t{1} << 62;
    if constexpr (std::is_floating_point_v<T>) {
      return std::isnan(v) ||
             (v >= -static_cast<double>(kLimit) && v <= static_cast<double>(kLimit));
    } else if constexpr (sizeof(T) < 8) {
      return true;
    } else if constexpr (std::is_signed_v<T>) {
      return v >= -kLimit && v <= kLimit;
    } else {
      return v <= static_cast<std::uint64_t>(kLimit);
    }
  }
  bool take(std::size_t n) {
    if (n > in_.size() - pos_) {
      fail("truncated");
      return false;
    }
    pos_ += n;
    return true;
  }
  void fail(const char* why) {
    if (error_.empty()) error_ = why;
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  std::string error_;
  std::uint16_t version_ = kReportVersion;
};

std::vector<std::uint8_t> header(const Snapshot& s, const std::string& node,
                                 const std::string& http_address, std::uint16_t version) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  Writer w(out, version);
  w(version), w(node), w(http_address), w(s.tick), w(s.now_ns), w(s.windows_ns);
  return out;
}

// Writes the frame's rank count into the 4 bytes reserved after the header.
void finish(std::vector<std::uint8_t>& frame, std::size_t count_at, std::uint32_t count) {
  std::memcpy(frame.data() + count_at, &count, sizeof(count));
}

}  // namespace

std::vector<std::vector<std::uint8_t>> encode_reports(const Snapshot& snapshot,
                                                      const std::string& node,
                                                      const std::string& http_address,
                                                      SentCommCalls* sent, std::uint16_t version) {
  const std::vector<std::uint8_t> head = header(snapshot, node, http_address, version);
  std::vector<std::vector<std::uint8_t>> frames;
  std::uint32_t count = 0;
  auto open = [&] {
    frames.push_back(head);
    frames.back().resize(head.size() + sizeof(std::uint32_t));
    count = 0;
  };
  open();
  for (const JobSnapshot& job : snapshot.jobs) {
    for (const RankSnapshot& rank : job.ranks) {
      std::vector<std::uint8_t>& frame = frames.back();
      const std::size_t before = frame.size();
      Writer writer(frame, version);
      writer(rank);
      if (sent != nullptr) {
        writer(sent->next(rank, snapshot.tick));
      } else {
        CommCallsDelta whole;
        whole.tail = rank.comm_calls;
        writer(whole);
      }
      if (frame.size() > kMaxReportBytes && count > 0) {
        std::vector<std::uint8_t> moved(frame.begin() + static_cast<std::ptrdiff_t>(before),
                                        frame.end());
        frame.resize(before);
        finish(frame, head.size(), count);
        open();
        frames.back().insert(frames.back().end(), moved.begin(), moved.end());
      }
      ++count;
    }
  }
  finish(frames.back(), head.size(), count);
  return frames;
}

std::string decode_report(std::span<const std::uint8_t> frame, NodeReport& out) {
  if (frame.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), frame.begin())) {
    return "not a node report";
  }
  Reader r(frame.subspan(kMagic.size()));
  std::uint16_t version = 0;
  r(version);
  if (r.error().empty() && (version < kOldestReportVersion || version > kReportVersion)) {
    return "report version " + std::to_string(version) + ", this head reads " +
           std::to_string(kOldestReportVersion) + " to " + std::to_string(kReportVersion);
  }
  r.set_version(version);
  r(out.node), r(out.http_address), r(out.tick), r(out.now_ns), r(out.windows_ns);
  std::uint32_t count = 0;
  r(count);
  // Every rank takes more than one byte: a count past the end is a lie.
  if (r.error().empty() && count > frame.size()) return "count past the end";
  out.ranks.clear();
  out.calls.clear();
  for (std::uint32_t i = 0; i < count && r.error().empty(); ++i) {
    r(out.ranks.emplace_back());
    r(out.calls.emplace_back());
    if (out.calls.back().base == 0) {
      RankSnapshot& rank = out.ranks.back();
      rank.comm_calls = out.calls.back().front;
      rank.comm_calls.insert(rank.comm_calls.end(), out.calls.back().tail.begin(),
                             out.calls.back().tail.end());
    }
  }
  if (r.error().empty() && !r.at_end()) return "trailing bytes";
  return r.error();
}

}  // namespace stallwatch::collector
