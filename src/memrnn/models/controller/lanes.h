// Blocks of vector lanes for the compiled kernels of attention.cpp and lstm.cpp (see
// native.py): GCC's vector extension, the x86-64 clones and an exp for floats.

#pragma once

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

#define MEMRNN_INLINE inline __attribute__((always_inline))

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

}  // namespace memrnn_lanes
