// SPDX-License-Identifier: MIT
#include "pandas_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace stallwatch::collector {

namespace {

// numpy's threshold below which a partition is finished by insertion sort,
// and the recursion stack it allocates (two pointers per level).
constexpr std::ptrdiff_t kSmallQuicksort = 15;
constexpr int kStackSize = 128;

int most_significant_bit(std::size_t n) {
  int depth = 0;
  while (n >>= 1)
    ++depth;
  return depth;
}

template <typename T>
bool less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    // NaN sorts last, as in numpy.
    return a < b || (b != b && a == a);
  } else {
    return a < b;
  }
}

// Heapsort of the indices in [first, first + n), 1-based as numpy writes it.
template <typename T>
void heapsort_indices(const T* v, std::uint32_t* first, std::ptrdiff_t n) {
  std::uint32_t* a = first - 1;
  std::uint32_t tmp = 0;
  std::ptrdiff_t i = 0, j = 0;
  for (std::ptrdiff_t l = n >> 1; l > 0; --l) {
    tmp = a[l];
    for (i = l, j = l << 1; j <= n;) {
      if (j < n && less(v[a[j]], v[a[j + 1]])) j += 1;
      if (less(v[tmp], v[a[j]])) {
        a[i] = a[j];
        i = j;
        j += j;
      } else {
        break;
      }
    }
    a[i] = tmp;
  }
  for (; n > 1;) {
    tmp = a[n];
    a[n] = a[1];
    n -= 1;
    for (i = 1, j = 2; j <= n;) {
      if (j < n && less(v[a[j]], v[a[j + 1]])) j++;
      if (less(v[tmp], v[a[j]])) {
        a[i] = a[j];
        i = j;
        j += j;
      } else {
        break;
      }
    }
    a[i] = tmp;
  }
}

template <typename T>
std::vector<std::uint32_t> introsort(std::span<const T> keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  if (keys.size() < 2) return order;
  const T* v = keys.data();
  std::uint32_t* pl = order.data();
  std::uint32_t* pr = order.data() + order.size() - 1;
  std::uint32_t* stack[kStackSize];
  std::uint32_t** sptr = stack;
  int depth[kStackSize];
  int* psdepth = depth;
  int cdepth = most_significant_bit(keys.size()) * 2;
  for (;;) {
    if (cdepth < 0) {
      heapsort_indices(v, pl, pr - pl + 1);
    } else {
      while ((pr - pl) > kSmallQuicksort) {
        std::uint32_t* pm = pl + ((pr - pl) >> 1);
        if (less(v[*pm], v[*pl])) std::swap(*pm, *pl);
        if (less(v[*pr], v[*pm])) std::swap(*pr, *pm);
        if (less(v[*pm], v[*pl])) std::swap(*pm, *pl);
        const T vp = v[*pm];
        std::uint32_t* pi = pl;
        std::uint32_t* pj = pr - 1;
        std::swap(*pm, *pj);
        for (;;) {
          do {
            ++pi;
          } while (less(v[*pi], vp));
          do {
            --pj;
          } while (less(vp, v[*pj]));
          if (pi >= pj) break;
          std::swap(*pi, *pj);
        }
        std::uint32_t* pk = pr - 1;
        std::swap(*pi, *pk);
        // The larger partition waits on the stack.
        if (pi - pl < pr - pi) {
          *sptr++ = pi + 1;
          *sptr++ = pr;
          pr = pi - 1;
        } else {
          *sptr++ = pl;
          *sptr++ = pi - 1;
          pl = pi + 1;
        }
        *psdepth++ = --cdepth;
      }
      for (std::uint32_t* pi = pl + 1; pi <= pr; ++pi) {
        const std::uint32_t vi = *pi;
        const T vp = v[vi];
        std::uint32_t* pj = pi;
        std::uint32_t* pk = pi - 1;
        while (pj > pl && less(vp, v[*pk]))
          *pj-- = *pk--;
        *pj = vi;
      }
    }
    if (sptr == stack) break;
    pr = *(--sptr);
    pl = *(--sptr);
    cdepth = *(--psdepth);
  }
  return order;
}

double pairwise(const double* a, std::size_t n) {
  constexpr std::size_t kBlock = 128;
  if (n < 8) {
    double res = 0.;
    for (std::size_t i = 0; i < n; ++i)
      res += a[i];
    return res;
  }
  if (n <= kBlock) {
    double r[8];
    for (std::size_t k = 0; k < 8; ++k)
      r[k] = a[k];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t k = 0; k < 8; ++k)
        r[k] += a[i + k];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i)
      res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

}  // namespace

std::vector<std::uint32_t> argsort_quick(std::span<const std::int64_t> keys) {
  return introsort(keys);
}

std::vector<std::uint32_t> argsort_quick(std::span<const double> keys) {
  return introsort(keys);
}

std::vector<std::uint32_t> argsort_quick_descending(std::span<const std::int64_t> keys) {
  std::vector<std::int64_t> reversed(keys.rbegin(), keys.rend());
  std::vector<std::uint32_t> order = introsort(std::span<const std::int64_t>(reversed));
  const auto last = static_cast<std::uint32_t>(keys.size() - 1);
  for (std::uint32_t& i : order)
    i = last - i;
  std::reverse(order.begin(), order.end());
  return order;
}

double percentile_linear(std::span<const double> sorted, double q) {
  const std::size_t n = sorted.size();
  const double virtual_index = static_cast<double>(n - 1) * q;
  if (virtual_index >= static_cast<double>(n - 1)) return sorted[n - 1];
  if (virtual_index < 0) return sorted[0];
  const double previous = std::floor(virtual_index);
  const auto lo = static_cast<std::size_t>(previous);
  const double gamma = virtual_index - previous;
  const double a = sorted[lo];
  const double b = sorted[lo + 1];
  const double diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

double pairwise_sum(std::span<const double> values) {
  return pairwise(values.data(), values.size());
}

}  // namespace stallwatch::collector
