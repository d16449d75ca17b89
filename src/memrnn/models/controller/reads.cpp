// The memory's reads of K controllers trained at once (loops.cpp's loops with members,
// memrnn.models.grouped), and their gradients, compiled with the other loops (see
// native.py); and the tanh of the values they read.
//
// For one row of the batch and one end, a read is r = sum_i w_i v_i over the rows i of
// the memory written so far, a (1 x n) @ (n x m) product; its backward is dL/dw_i =
// <dL/dr, v_i> and dL/dv_i += w_i dL/dr. ATen runs these on K B rows as broadcast
// element-wise kernels and batched products of a few numbers each, at several
// microseconds a call and a few nanoseconds a number; here each is one pass over the
// rows, m units at a time in vector lanes. Sums run in a fixed order (over i from the
// memory's first row; over the lanes of a dot product from the first), so the numbers
// do not depend on the thread count; they are not ATen's bit for bit (the tests compare
// the loops with the Python ones, which are ATen's, in float64 and float32). One
// controller (K = 0, the paper experiments) keeps loops.cpp's bit-for-bit reads.

#include <algorithm>

#include "lanes.h"

using at::Tensor;

namespace {

using namespace memrnn_lanes;

// A 3-D tensor whose last dimension is contiguous: x(a, b) is the row x[a, b, :].
template <typename T>
struct Rows3 {
  T* data;
  int64_t s0, s1;
  T* operator()(int64_t b, int64_t i) const { return data + b * s0 + i * s1; }
};

template <typename T>
Rows3<T> rows3(const Tensor& x, const char* name) {
  TORCH_CHECK(x.dim() == 3 && x.stride(2) == 1, "reads.cpp: ", name,
              " must be 3-D with its last dimension contiguous, got sizes ", x.sizes(),
              " and strides ", x.strides());
  return {x.data_ptr<T>(), x.stride(0), x.stride(1)};
}

// out[b, e m + c] = sum over i in [lo, hi) of w[e, b, i] v[b, i, c], i ascending.
template <typename T>
MEMRNN_CLONES void read_rows(int64_t begin, int64_t end, int64_t ends, int64_t m, int64_t lo,
                             int64_t hi, Rows3<T> out, Rows3<T> w, Rows3<T> v) {
  typedef typename Vec<T>::type V;
  for (int64_t b = begin; b < end; ++b) {
    for (int64_t e = 0; e < ends; ++e) {
      const T* weight = w(e, b);
      for (int64_t c = 0; c < m; c += kLanes) {
        const int64_t n = std::min(kLanes, m - c);
        V acc = {};
        for (int64_t i = lo; i < hi; ++i) acc += weight[i] * load<V>(v(b, i) + c, n);
        store(out(b, e) + c, acc, n);
      }
    }
  }
}

// The lanes' sum, as a tree of fixed shape: ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)).
template <typename T, typename V>
MEMRNN_INLINE T sum_lanes(const V& x) {
  static_assert(kLanes == 8, "the tree below sums 8 lanes");
  return ((x[0] + x[4]) + (x[2] + x[6])) + ((x[1] + x[5]) + (x[3] + x[7]));
}

// d_w[b, e, i] = sum over c of d_r[b, e, c] v[b, i, c], for i in [lo, hi): lane l of a
// block of kLanes sums units c = l, l + kLanes, ...; then the lanes (sum_lanes).
template <typename T>
MEMRNN_CLONES void read_weight_grad_rows(int64_t begin, int64_t end, int64_t ends, int64_t m,
                                         int64_t lo, int64_t hi, Rows3<T> d_w, Rows3<T> d_r,
                                         Rows3<T> v) {
  typedef typename Vec<T>::type V;
  for (int64_t b = begin; b < end; ++b) {
    for (int64_t e = 0; e < ends; ++e) {
      const T* g = d_r(b, e);
      T* out = d_w(b, e);
      for (int64_t i = lo; i < hi; ++i) {
        const T* value = v(b, i);
        V acc = {};
        for (int64_t c = 0; c < m; c += kLanes) {
          const int64_t n = std::min(kLanes, m - c);
          acc += load<V>(g + c, n) * load<V>(value + c, n);
        }
        out[i] = sum_lanes<T>(acc);
      }
    }
  }
}

// d_v[b, i, c] += w[0, b, i] d_r[b, 0, c], then += w[1, b, i] d_r[b, 1, c] (a deque),
// for i in [lo, hi).
template <typename T>
MEMRNN_CLONES void value_grad_rows(int64_t begin, int64_t end, int64_t ends, int64_t m,
                                   int64_t lo, int64_t hi, Rows3<T> d_v, Rows3<T> w,
                                   Rows3<T> d_r) {
  typedef typename Vec<T>::type V;
  for (int64_t b = begin; b < end; ++b) {
    for (int64_t i = lo; i < hi; ++i) {
      T* row = d_v(b, i);
      for (int64_t c = 0; c < m; c += kLanes) {
        const int64_t n = std::min(kLanes, m - c);
        V acc = load<V>(row + c, n);
        for (int64_t e = 0; e < ends; ++e) acc = acc + w(e, b)[i] * load<V>(d_r(b, e) + c, n);
        store(row + c, acc, n);
      }
    }
  }
}

template <typename T>
MEMRNN_CLONES void tanh_rows(int64_t begin, int64_t end, int64_t width, Plane<T> x) {
  typedef typename Vec<T>::type V;
  over_blocks(begin, end, width, [&](int64_t row, int64_t j, int64_t n) MEMRNN_ALWAYS {
    store(x(row) + j, tanh_lanes(load<V>(x(row) + j, n)), n);
  });
}

// kernel(begin, end, T()) for the rows [begin, end) of the batch, split among threads, T
// the floating type of x.
template <typename F>
void over_rows(const Tensor& x, const F& kernel) {
  at::parallel_for(0, x.size(0), kRowGrain, [&](int64_t begin, int64_t end) {
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "memory_reads",
                               [&] { kernel(begin, end, scalar_t()); });
  });
}

}  // namespace

namespace memrnn_reads {

// The reads of every end into out (B, E m), from the read weights w (E, B, n) and the
// values (B, n, m), over the memory's rows [lo, hi).
void read(const Tensor& out, const Tensor& w, const Tensor& values, int64_t lo, int64_t hi) {
  const int64_t m = values.size(2), ends = w.size(0);
  over_rows(values, [&](int64_t begin, int64_t end, auto type) {
    using T = decltype(type);
    read_rows<T>(begin, end, ends, m, lo, hi, rows3<T>(out.unflatten(1, {ends, m}), "out"),
                 rows3<T>(w, "w"), rows3<T>(values, "values"));
  });
}

// dL/d(read weights) into d_w (B, E, n), rows [lo, hi) (the others are left as they
// are), from d_r = dL/dr (B, E, m) and the values (B, n, m).
void read_weight_grad(const Tensor& d_w, const Tensor& d_r, const Tensor& values, int64_t lo,
                      int64_t hi) {
  const int64_t m = values.size(2), ends = d_r.size(1);
  over_rows(values, [&](int64_t begin, int64_t end, auto type) {
    using T = decltype(type);
    read_weight_grad_rows<T>(begin, end, ends, m, lo, hi, rows3<T>(d_w, "d_w"),
                             rows3<T>(d_r, "d_r"), rows3<T>(values, "values"));
  });
}

// d_values (B, n, m) += dL/d values of the reads with weights w (E, B, n), rows [lo, hi)
// (where w is 0, outside them, nothing is added).
void add_value_grad(const Tensor& d_values, const Tensor& w, const Tensor& d_r, int64_t lo,
                    int64_t hi) {
  const int64_t m = d_values.size(2), ends = w.size(0);
  over_rows(d_values, [&](int64_t begin, int64_t end, auto type) {
    using T = decltype(type);
    value_grad_rows<T>(begin, end, ends, m, lo, hi, rows3<T>(d_values, "d_values"),
                       rows3<T>(w, "w"), rows3<T>(d_r, "d_r"));
  });
}

// x[:, :width] = tanh(x[:, :width]) in place, x (B, >= width) with contiguous rows.
void tanh_columns(const Tensor& x, int64_t width) {
  over_rows(x, [&](int64_t begin, int64_t end, auto type) {
    using T = decltype(type);
    tanh_rows<T>(begin, end, width, plane<T>(x));
  });
}

}  // namespace memrnn_reads
