// SPDX-License-Identifier: MIT
#pragma once

#include <cassert>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace stallwatch::collector::detail {

// A FIFO of at most `capacity` elements; pushing onto a full ring overwrites
// (and push_back returns) the oldest. Storage grows lazily up to exactly the
// capacity, so a rank that lives a minute does not pay for an hour of
// history.
//
// Index 0 is the oldest element. Single-threaded; holds its elements by value.
template <class T>
class RingBuffer {
 public:
  explicit RingBuffer(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == capacity_; }

  // Appends `value`; when the ring is full it overwrites the oldest element.
  void push(T value) { push_slot() = std::move(value); }

  // Appends an element for the caller to assign, and returns it: a fresh
  // one, or the oldest one (still holding its value) when the ring is full.
  [[gnu::always_inline]] T& push_slot() {
    if (size_ == capacity_) {
      // A full ring overwrites memory written long ago: fetch the slots a few
      // pushes ahead now, so reading or replacing them does not stall.
      if (kPrefetchAhead < capacity_)
        __builtin_prefetch(&storage_[wrap(head_ + kPrefetchAhead)], 1);
      T& slot = storage_[head_];
      head_ = wrap(head_ + 1);
      return slot;
    }
    if (size_ < storage_.size()) return storage_[wrap(head_ + size_++)];
    // Every slot is live: append after the newest, rotated to the end first.
    if (head_ != 0 || storage_.size() == storage_.capacity()) grow();
    ++size_;
    return storage_.emplace_back();
  }

  // Appends `value`; returns the element it displaced when the ring was full.
  std::optional<T> push_back(T value) {
    std::optional<T> evicted;
    if (size_ == capacity_) evicted.emplace(std::move(storage_[head_]));
    push(std::move(value));
    return evicted;
  }

  void pop_front() {
    assert(size_ > 0);
    head_ = wrap(head_ + 1);
    --size_;
    if (size_ == 0) head_ = 0;
  }

  void clear() {
    size_ = 0;
    head_ = 0;
  }

  T& operator[](std::size_t i) { return storage_[wrap(head_ + i)]; }
  const T& operator[](std::size_t i) const { return storage_[wrap(head_ + i)]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  std::size_t bytes() const { return storage_.capacity() * sizeof(T); }

 private:
  static constexpr std::size_t kPrefetchAhead = 512 / sizeof(T) + 1;

  std::size_t wrap(std::size_t i) const {
    const std::size_t n = storage_.size();
    return i >= n ? i - n : i;
  }
  // Rotates the live elements to start at index 0, growing the storage when
  // it is full (doubling while small, then by half, so a ring that settles
  // below its capacity leaves at most a third of its storage unused), never
  // past the capacity.
  void grow() {
    const std::size_t n = storage_.size();
    std::size_t want = n < 8 ? 16 : n < 1024 ? 2 * n : n + n / 2;
    want = want < capacity_ ? want : capacity_;
    std::vector<T> fresh;
    fresh.reserve(want > storage_.capacity() ? want : storage_.capacity());
    for (std::size_t i = 0; i < size_; ++i)
      fresh.push_back(std::move((*this)[i]));
    storage_ = std::move(fresh);
    head_ = 0;
  }

  std::size_t capacity_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::vector<T> storage_;
};

}  // namespace stallwatch::collector::detail
