// Scaled dot-product self-attention (Vaswani et al. 2017, section 3.2.1) of many short
// sequences, for the grouped causal Transformer (memrnn.models.grouped_transformer),
// forward and backward, compiled with the time loops (see native.py).
//
// At the matrix's sizes (heads of 8 units, tens of steps, a thousand sequence-heads a
// batch) ATen spends most of a Transformer's step around the attention, not in it:
// batched products of 23 x 23 x 8 matrices at a few GFLOP/s, the heads' transposes and
// the softmax's passes over memory. Here each sequence-head is done whole while its
// queries, keys and values sit in the cache, read from and written to the projections'
// (rows, T, 3 d) layout directly, and the keys a causal mask hides from a query (half of
// them) are left out of its sums, which their weights of exactly 0 leave as they are.
// The sums run in a fixed order (over the head's units, the keys, the queries), so the
// numbers do not depend on the thread count; they are not ATen's bit for bit (the tests
// compare the two in float64 and float32).

#include <ATen/Functions.h>
#include <ATen/core/LegacyTypeDispatch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "lanes.h"

using at::Tensor;

namespace {

using namespace memrnn_lanes;

// One sequence-head's shape: T steps (`steps`, and `wide`: T rounded up to a whole
// number of vector lanes, so that the loops over keys have no scalar remainder), dh
// units, rows of the projections `stride` apart.
struct Head {
  int64_t steps, wide, units, stride;
};

// The terms of row i of a product that a causal mask leaves: r in [from[i], to[i]), or
// all of them where the pointer is null. The others' factor from p (or from the
// gradient of the scores, which p multiplies) is exactly 0, and adding 0 times a finite
// number to a sum changes no bit of it, so leaving them out keeps every number.
struct Terms {
  const int64_t* from;
  const int64_t* to;
  int64_t count;
  int64_t first(int64_t i) const { return from ? from[i] : 0; }
  int64_t last(int64_t i) const { return to ? to[i] : count; }
  // [first, last) of rows i .. i + 3, together
  int64_t first4(int64_t i) const {
    return std::min(std::min(first(i), first(i + 1)), std::min(first(i + 2), first(i + 3)));
  }
  int64_t last4(int64_t i) const {
    return std::max(std::max(last(i), last(i + 1)), std::max(last(i + 2), last(i + 3)));
  }
};

// The columns of row i of a product that are read later: those before wanted[i], or
// all of them where the pointer is null (a causal mask's scores past a query's step
// are replaced by -inf, their gradients by 0).
struct Wanted {
  const int64_t* upto;
  bool any4(int64_t i, int64_t col) const {
    return !upto || col < std::max(std::max(upto[i], upto[i + 1]),
                                   std::max(upto[i + 2], upto[i + 3]));
  }
  bool any(int64_t i, int64_t col) const { return !upto || col < upto[i]; }
};

// out (rows, width) = a (rows, count) b (count, width): a's entry (i, r) at
// a[i * a_i + r * a_r] (a transposed with a_i = 1), b's and out's rows ldb and ldo
// apart. Every entry is summed over r in order, over the row's terms (``terms``), four
// rows by kLanes columns at a time in registers; blocks of columns no row of the four
// wants (``wanted``) are left as they are.
template <typename T>
MEMRNN_INLINE void product(const T* __restrict a, int64_t a_i, int64_t a_r,
                           const T* __restrict b, int64_t ldb, T* __restrict out,
                           int64_t ldo, int64_t rows, const Terms& terms, int64_t width,
                           const Wanted& wanted = Wanted{nullptr}) {
  typedef T Lanes __attribute__((vector_size(kLanes * sizeof(T))));
  int64_t col = 0;
  for (; col + kLanes <= width; col += kLanes) {
    int64_t i = 0;
    for (; i + 4 <= rows; i += 4) {
      if (!wanted.any4(i, col)) continue;
      const T* a0 = a + i * a_i;
      Lanes acc0 = {}, acc1 = {}, acc2 = {}, acc3 = {};
      for (int64_t r = terms.first4(i), end = terms.last4(i); r < end; ++r) {
        Lanes br;
        std::memcpy(&br, b + r * ldb + col, sizeof(Lanes));
        const T* ar = a0 + r * a_r;
        acc0 += ar[0] * br;
        acc1 += ar[a_i] * br;
        acc2 += ar[2 * a_i] * br;
        acc3 += ar[3 * a_i] * br;
      }
      std::memcpy(out + i * ldo + col, &acc0, sizeof(Lanes));
      std::memcpy(out + (i + 1) * ldo + col, &acc1, sizeof(Lanes));
      std::memcpy(out + (i + 2) * ldo + col, &acc2, sizeof(Lanes));
      std::memcpy(out + (i + 3) * ldo + col, &acc3, sizeof(Lanes));
    }
    for (; i < rows; ++i) {
      if (!wanted.any(i, col)) continue;
      Lanes acc = {};
      for (int64_t r = terms.first(i), end = terms.last(i); r < end; ++r) {
        Lanes br;
        std::memcpy(&br, b + r * ldb + col, sizeof(Lanes));
        acc += a[i * a_i + r * a_r] * br;
      }
      std::memcpy(out + i * ldo + col, &acc, sizeof(Lanes));
    }
  }
  for (; col < width; ++col) {
    for (int64_t i = 0; i < rows; ++i) {
      T acc = 0;
      for (int64_t r = terms.first(i), end = terms.last(i); r < end; ++r) {
        acc += a[i * a_i + r * a_r] * b[r * ldb + col];
      }
      out[i * ldo + col] = acc;
    }
  }
}

// The softmax of a row of `width` entries (a whole number of blocks of kLanes; entries
// of -inf get 0), in place. Floats: the maximum, exp and sum lane by lane, the lanes'
// sums added in a fixed order; doubles (the tests' precision): one entry at a time.
MEMRNN_INLINE void softmax(float* __restrict row, int64_t width) {
  Floats top = {}, total = {};
  top -= std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < width; j += kLanes) {
    Floats x;
    std::memcpy(&x, row + j, sizeof(Floats));
    top = x > top ? x : top;
  }
  float most = top[0];
  for (int64_t l = 1; l < kLanes; ++l) most = top[l] > most ? top[l] : most;
  for (int64_t j = 0; j < width; j += kLanes) {
    Floats x;
    std::memcpy(&x, row + j, sizeof(Floats));
    x = exp_lanes(x - most);
    total += x;
    std::memcpy(row + j, &x, sizeof(Floats));
  }
  float sum = 0;
  for (int64_t l = 0; l < kLanes; ++l) sum += total[l];
  for (int64_t j = 0; j < width; j += kLanes) {
    Floats x;
    std::memcpy(&x, row + j, sizeof(Floats));
    x /= sum;
    std::memcpy(row + j, &x, sizeof(Floats));
  }
}

MEMRNN_INLINE void softmax(double* __restrict row, int64_t width) {
  double top = -std::numeric_limits<double>::infinity(), total = 0;
  for (int64_t j = 0; j < width; ++j) top = row[j] > top ? row[j] : top;
  for (int64_t j = 0; j < width; ++j) {
    row[j] = row[j] == -std::numeric_limits<double>::infinity() ? 0 : std::exp(row[j] - top);
    total += row[j];
  }
  for (int64_t j = 0; j < width; ++j) row[j] /= total;
}

// to (cols, rows) with row stride ld_to = from (rows, cols) with row stride ld_from,
// transposed.
template <typename T>
MEMRNN_INLINE void transpose(const T* __restrict from, int64_t ld_from, T* __restrict to,
                             int64_t ld_to, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) to[j * ld_to + i] = from[i * ld_from + j];
}

// Where a mask (T, T) lets queries see keys (is not -inf), and so where the softmax
// weights p may be other than 0 (a causal mask: each query's keys up to its own step):
// query i's keys within [0, to_row[i]), key j's queries within [from_col[j], to_col[j]).
// spans (3 T) holds to_row, from_col and to_col.
template <typename T>
void mask_spans(const T* __restrict mask, int64_t n, int64_t* __restrict spans) {
  int64_t *to_row = spans, *from_col = spans + n, *to_col = spans + 2 * n;
  std::fill(spans, spans + 3 * n, 0);
  std::fill(from_col, from_col + n, n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      if (mask[i * n + j] == -std::numeric_limits<T>::infinity()) continue;
      to_row[i] = j + 1;
      from_col[j] = std::min(from_col[j], i);
      to_col[j] = i + 1;
    }
  }
}

// Forward of one sequence-head (q, k and v rows h.stride apart): p (T, T) the softmax of
// scale q k^T + mask, and out = p v, written with row stride out_stride. Scratch: kt
// (dh, wide), zero past T, and scores (T, wide). spans: the mask's (mask_spans).
template <typename T>
MEMRNN_INLINE void head_forward(const Head& h, const T* q, const T* k, const T* v,
                                const T* __restrict mask, T scale, T* __restrict p, T* out,
                                int64_t out_stride, T* __restrict kt, T* __restrict scores,
                                const int64_t* __restrict spans) {
  const int64_t n = h.steps, w = h.wide, u = h.units;
  const T minus_inf = -std::numeric_limits<T>::infinity();
  transpose(k, h.stride, kt, w, n, u);
  product(q, h.stride, 1, kt, w, scores, w, n, Terms{nullptr, nullptr, u}, w, Wanted{spans});
  for (int64_t i = 0; i < n; ++i) {
    // the keys query i sees, and the blocks of lanes they take: the softmax of the
    // others' -inf is 0, which changes neither the maximum nor the sum
    const int64_t seen = spans[i], blocks = (seen + kLanes - 1) / kLanes * kLanes;
    T* __restrict row = scores + i * w;
    const T* __restrict mi = mask + i * n;
    for (int64_t j = 0; j < seen; ++j) row[j] = row[j] * scale + mi[j];
    for (int64_t j = seen; j < blocks; ++j) row[j] = minus_inf;
    softmax(row, blocks);
    std::memcpy(p + i * n, row, seen * sizeof(T));
    std::fill(p + i * n + seen, p + (i + 1) * n, T(0));
  }
  product(p, n, 1, v, h.stride, out, out_stride, n, Terms{nullptr, spans, n}, u);
}

// Backward of one sequence-head, given p and the gradient g of its output (row stride
// g_stride): the gradients of q, k and v, written with the projections' row stride.
// Scratch: vt (dh, wide), zero past T, and ds (T, wide). spans: the mask's (mask_spans).
template <typename T>
MEMRNN_INLINE void head_backward(const Head& h, const T* q, const T* k, const T* v,
                                 const T* __restrict p, T scale, const T* g,
                                 int64_t g_stride, T* dq, T* dk, T* dv, T* __restrict vt,
                                 T* __restrict ds, const int64_t* __restrict spans) {
  const int64_t n = h.steps, w = h.wide, u = h.units;
  const Terms queries{spans + n, spans + 2 * n, n}, keys{nullptr, spans, n};
  product(p, 1, n, g, g_stride, dv, h.stride, n, queries, u);  // dv = p^T g
  transpose(v, h.stride, vt, w, n, u);
  product(g, g_stride, 1, vt, w, ds, w, n, Terms{nullptr, nullptr, u}, w,
          Wanted{spans});  // dp = g v^T
  // the softmax's backward: ds_ij = p_ij (dp_ij - p_i . dp_i), times the scale (so 0
  // where p_ij is)
  for (int64_t i = 0; i < n; ++i) {
    const T* __restrict pi = p + i * n;
    T* __restrict row = ds + i * w;
    T dot = 0;
    for (int64_t j = 0; j < spans[i]; ++j) dot += pi[j] * row[j];
    for (int64_t j = 0; j < spans[i]; ++j) row[j] = pi[j] * (row[j] - dot) * scale;
    std::fill(row + spans[i], row + n, T(0));  // where p is
  }
  product(ds, w, 1, k, h.stride, dq, h.stride, n, keys, u);  // dq = ds k
  product(ds, 1, w, q, h.stride, dk, h.stride, n, queries, u);  // dk = ds^T q
}

template <typename T>
MEMRNN_CLONES void forward_heads(const Head& h, int64_t heads, int64_t begin, int64_t end,
                                 const T* qkv, const T* mask, int64_t mask_heads, T scale,
                                 const int64_t* spans, T* p, T* out) {
  const int64_t n = h.steps, w = h.wide, u = h.units, d = heads * u;
  std::vector<T> scratch(static_cast<size_t>((u + n) * w), T(0));
  for (int64_t s = begin; s < end; ++s) {
    const int64_t r = s / heads, a = s % heads % mask_heads;
    const T* q = qkv + r * n * h.stride + s % heads * u;
    head_forward(h, q, q + d, q + 2 * d, mask + a * n * n, scale, p + s * n * n,
                 out + r * n * d + s % heads * u, d, scratch.data(), scratch.data() + u * w,
                 spans + a * 3 * n);
  }
}

template <typename T>
MEMRNN_CLONES void backward_heads(const Head& h, int64_t heads, int64_t begin, int64_t end,
                                  const T* qkv, const T* p, T scale, const T* g,
                                  const int64_t* spans, int64_t mask_heads, T* d_qkv) {
  const int64_t n = h.steps, w = h.wide, u = h.units, d = heads * u;
  std::vector<T> scratch(static_cast<size_t>((u + n) * w), T(0));
  T *vt = scratch.data(), *ds = vt + u * w;
  for (int64_t s = begin; s < end; ++s) {
    const int64_t r = s / heads, a = s % heads, at = r * n * h.stride + a * u;
    const T* q = qkv + at;
    T* dq = d_qkv + at;
    head_backward(h, q, q + d, q + 2 * d, p + s * n * n, scale, g + r * n * d + a * u, d,
                  dq, dq + d, dq + 2 * d, vt, ds, spans + a % mask_heads * 3 * n);
  }
}

// A few sequence-heads per task, so that a thread's share is worth starting.
constexpr int64_t kGrain = 16;

// mask_spans of each head's mask (mask (1 or heads, T, T)), 3 T numbers a head.
std::vector<int64_t> spans_of(const Tensor& mask) {
  const int64_t n = mask.size(1);
  std::vector<int64_t> spans(mask.size(0) * 3 * n);
  AT_DISPATCH_FLOATING_TYPES(mask.scalar_type(), "mask_spans", [&] {
    for (int64_t a = 0; a < mask.size(0); ++a) {
      mask_spans(mask.data_ptr<scalar_t>() + a * n * n, n, spans.data() + a * 3 * n);
    }
  });
  return spans;
}

}  // namespace

// qkv (R, T, 3 d) contiguous, mask (1 or heads, T, T): the attention's output (R, T, d)
// and its softmax weights p (R heads, T, T), which the backward reads.
std::vector<Tensor> attention_forward(const Tensor& qkv, const Tensor& mask, int64_t heads,
                                      double scale) {
  const int64_t rows = qkv.size(0), steps = qkv.size(1), d = qkv.size(2) / 3;
  const Head h{steps, (steps + kLanes - 1) / kLanes * kLanes, d / heads, 3 * d};
  Tensor out = at::empty({rows, steps, d}, qkv.options());
  Tensor p = at::empty({rows * heads, steps, steps}, qkv.options());
  const int64_t mask_heads = mask.size(0);
  const std::vector<int64_t> spans = spans_of(mask);
  at::parallel_for(0, rows * heads, kGrain, [&](int64_t begin, int64_t end) {
    AT_DISPATCH_FLOATING_TYPES(qkv.scalar_type(), "attention_forward", [&] {
      forward_heads<scalar_t>(h, heads, begin, end, qkv.data_ptr<scalar_t>(),
                              mask.data_ptr<scalar_t>(), mask_heads,
                              static_cast<scalar_t>(scale), spans.data(), p.data_ptr<scalar_t>(),
                              out.data_ptr<scalar_t>());
    });
  });
  return {out, p};
}

// The gradient of qkv (R, T, 3 d), given qkv, the forward's p and mask, and the output's
// gradient g (R, T, d), each contiguous.
Tensor attention_backward(const Tensor& qkv, const Tensor& p, const Tensor& g,
                          const Tensor& mask, int64_t heads, double scale) {
  const int64_t rows = qkv.size(0), steps = qkv.size(1), d = qkv.size(2) / 3;
  const Head h{steps, (steps + kLanes - 1) / kLanes * kLanes, d / heads, 3 * d};
  Tensor d_qkv = at::empty_like(qkv);
  const std::vector<int64_t> spans = spans_of(mask);
  at::parallel_for(0, rows * heads, kGrain, [&](int64_t begin, int64_t end) {
    AT_DISPATCH_FLOATING_TYPES(qkv.scalar_type(), "attention_backward", [&] {
      backward_heads<scalar_t>(h, heads, begin, end, qkv.data_ptr<scalar_t>(),
                               p.data_ptr<scalar_t>(), static_cast<scalar_t>(scale),
                               g.data_ptr<scalar_t>(), spans.data(), mask.size(0),
                               d_qkv.data_ptr<scalar_t>());
    });
  });
  return d_qkv;
}
