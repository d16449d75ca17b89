// Blocks of vector lanes for the compiled kernels of attention.cpp, lstm.cpp and gru.cpp
// (see native.py): GCC's vector extension, the x86-64 clones, an exp, a sigmoid and a
// tanh for floats, and rows of tensors read through their strides.

#pragma once

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace memrnn_lanes {

// An x86-64 Linux build compiles the kernels twice, for AVX2 and for any x86-64, and
// picks one when loaded: the loops vectorise across independent outputs only (no sum is
// reordered without -ffast-math), so both give the same numbers.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#define MEMRNN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MEMRNN_CLONES
#endif

#define MEMRNN_ALWAYS __attribute__((always_inline))  // on lambdas too
#define MEMRNN_INLINE inline MEMRNN_ALWAYS

constexpr int64_t kLanes = 8;

// A block of kLanes is one AVX2 register of floats where the clone has AVX2, two SSE
// registers elsewhere, with the same arithmetic per lane.
typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef double Doubles __attribute__((vector_size(kLanes * sizeof(double))));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));

// exp(x) lane by lane for x <= 0: Cephes' expf (2^m e^r, |r| <= ln 2 / 2, a degree-6
// polynomial, about 1 ulp), and 0 below -87 (where expf is below float's smallest
// normal number) and at -inf.
MEMRNN_INLINE Floats exp_lanes(Floats x) {
  const Floats zero = {};
  Floats m = x * 1.44269504088896341f + 0.5f;
  Floats whole = __builtin_convertvector(__builtin_convertvector(m, Ints), Floats);
  m = whole > m ? whole - 1.0f : whole;  // floor
  const Floats r = x - m * 0.693359375f + m * 2.12194440e-4f;
  Floats y = zero + 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * r * r + r + 1.0f;
  const Ints bits = (__builtin_convertvector(m, Ints) + 127) << 23;
  y *= reinterpret_cast<const Floats&>(bits);
  return x < -87.0f ? zero : y;
}

// The block of kLanes numbers of type T.
template <typename T>
struct Vec;
template <>
struct Vec<float> {
  typedef Floats type;
};
template <>
struct Vec<double> {
  typedef Doubles type;
};

// Cephes' tanhf: an odd polynomial below 0.625, (1 - e) / (1 + e) with e = exp(-2|x|)
// above; about 2 ulp.
MEMRNN_INLINE Floats tanh_lanes(Floats x) {
  const Floats a = x < 0 ? -x : x;
  const Floats z = x * x;
  Floats p = z * -5.70498872745e-3f + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const Floats small = p * z * x + x;
  const Floats e = exp_lanes(a * -2.0f);
  const Floats large = (1.0f - e) / (1.0f + e);
  return a < 0.625f ? small : (x < 0 ? -large : large);
}

// 1 / (1 + exp(-x)), through e = exp(-|x|) <= 1, which cannot overflow: 1 / (1 + e)
// for x >= 0, e / (1 + e) below.
MEMRNN_INLINE Floats sigmoid_lanes(Floats x) {
  const Floats e = exp_lanes(x < 0 ? x : -x);
  const Floats s = 1.0f / (1.0f + e);
  return x < 0 ? e * s : s;
}

// Doubles, the tests' precision: the C library's, lane by lane.
MEMRNN_INLINE Doubles tanh_lanes(Doubles x) {
  for (int64_t l = 0; l < kLanes; ++l) x[l] = std::tanh(x[l]);
  return x;
}

MEMRNN_INLINE Doubles sigmoid_lanes(Doubles x) {
  for (int64_t l = 0; l < kLanes; ++l) x[l] = 1.0 / (1.0 + std::exp(-x[l]));
  return x;
}

// `n` <= kLanes numbers from p as one block (the rest zero), and back.
template <typename V, typename T>
MEMRNN_INLINE V load(const T* p, int64_t n) {
  V v = {};
  if (n == kLanes) {
    std::memcpy(&v, p, sizeof(V));
  } else {
    std::memcpy(&v, p, n * sizeof(T));
  }
  return v;
}

template <typename V, typename T>
MEMRNN_INLINE void store(T* p, const V& v, int64_t n) {
  if (n == kLanes) {
    std::memcpy(p, &v, sizeof(V));
  } else {
    std::memcpy(p, &v, n * sizeof(T));
  }
}

// Rows of a (rows, width) or (K, B, width) tensor whose rows lie `row` apart (each row
// contiguous); null for an undefined tensor.
template <typename T>
struct Plane {
  T* data;
  int64_t row;
  T* operator()(int64_t n) const { return data + n * row; }
};

template <typename T>
Plane<T> plane(const at::Tensor& x) {
  if (!x.defined()) return {nullptr, 0};
  const bool rows = x.dim() == 2 || (x.dim() == 3 && x.stride(0) == x.size(1) * x.stride(1));
  TORCH_CHECK(rows && x.stride(-1) == 1, "lanes.h: rows, each contiguous, were expected");
  return {x.data_ptr<T>(), x.stride(-2)};
}

// block(row, j, n) for each block of units j .. j + n - 1 of rows [begin, end) of r units:
// n = kLanes, but for a shorter last block, which gets a call of its own so that the
// whole blocks' loads and stores are of constant size.
template <typename F>
MEMRNN_INLINE void over_blocks(int64_t begin, int64_t end, int64_t r, F block) {
  const int64_t whole = r / kLanes * kLanes;
  for (int64_t row = begin; row < end; ++row) {
    for (int64_t j = 0; j < whole; j += kLanes) block(row, j, kLanes);
    if (whole < r) block(row, whole, r - whole);
  }
}

// Rows of a (rows, width) tensor (or (K, B, width), K B rows): how many.
inline int64_t rows_of(const at::Tensor& x) { return x.numel() / x.size(-1); }

// Step t of a (K, B, T, .) tensor, and step t - 1's (undefined at t = 0).
inline at::Tensor at_step(const at::Tensor& x, int64_t t) { return x.select(2, t); }
inline at::Tensor before_step(const at::Tensor& x, int64_t t) {
  return t > 0 ? x.select(2, t - 1) : at::Tensor();
}

// Enough rows per task that a thread's share is worth starting.
constexpr int64_t kRowGrain = 64;

}  // namespace memrnn_lanes
