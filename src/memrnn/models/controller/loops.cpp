// The time loops of memrnn.models.controller.fused for one controller, compiled (see
// native.py).
//
// Where ATen's own rounding matters (the matrix products, sigmoid, tanh, addcmul) each
// loop makes the same ATen calls, on the same tensors and in the same order, as the
// Python loop it replaces; the rest (the memory's step, the backward's 0/1 factors, the
// slopes) runs as plain loops with the same arithmetic in the same order. The numbers
// are the same bit for bit; what goes is the interpreter's few microseconds per
// operation, about half of a training step at the quick profiles' sizes. K controllers
// of one shape trained at once (k > 0, a group under torch.func.vmap) take products.py's
// batched products, the same ATen calls. The Python loops (loops.py, with steps.py for
// the memory) stay the reference, and run where this file cannot be compiled.

#include <ATen/Context.h>
#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <torch/csrc/utils/pybind.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

using at::Tensor;
using Lines = std::vector<std::pair<int64_t, int64_t>>;
using Maybe = std::optional<Tensor>;  // None in Python: a tensor the model does not have

namespace {

Tensor given(const Maybe& x) { return x.has_value() ? *x : Tensor(); }

// ATen's out= functions take the output as Tensor&; the tensor handles here are const
// (and views are temporaries), while the data they point to is what gets written.
Tensor& into(const Tensor& x) { return const_cast<Tensor&>(x); }


// ATen's bmm and baddbmm_ on a CPU multiply batches of fewer than 400 products
// (contraction x rows x columns) in a plain loop: each entry a sum from 0 over the
// contraction in order, in the tensors' precision, no fused multiply-add; baddbmm_ (beta
// and alpha 1) then adds it to the entry. One controller's reads at the small sizes of
// quick runs are mostly such products, and that loop reads every element through a
// generic accessor and allocates its result; the same arithmetic on the tensors' memory
// is several times faster. Larger products, and any that
// torch.set_float32_matmul_precision lets ATen hand to another kernel, stay ATen's.
bool small_product(int64_t contraction, int64_t rows, int64_t cols) {
#if defined(__x86_64__) || defined(_M_X64)  // elsewhere oneDNN may take even small ones
  return contraction > 0 && contraction * rows * cols < 400 &&
         at::globalContext().float32MatmulPrecision() == at::Float32MatmulPrecision::HIGHEST;
#else
  return false;
#endif
}

// products.py, for one controller (k == 0) or k members of one shape, member-major rows.

void addmm_into(const Tensor& out, const Tensor& add, const Tensor& x, const Tensor& w,
                int64_t k) {
  if (k == 0) {
    at::addmm_out(into(out), add, x, w);
    return;
  }
  at::baddbmm_out(into(out.view({k, -1, w.size(2)})), add.view({k, -1, add.size(-1)}),
                  x.view({k, -1, x.size(-1)}), w);
}

Tensor addmm(const Tensor& add, const Tensor& x, const Tensor& w, int64_t k) {
  if (k == 0) return at::addmm(add, x, w);
  return at::baddbmm(add.view({k, -1, add.size(-1)}), x.view({k, -1, x.size(-1)}), w)
      .flatten(0, 1);
}

Tensor mm(const Tensor& x, const Tensor& w, int64_t k) {
  if (k == 0) return at::matmul(x, w);
  return at::bmm(x.view({k, -1, x.size(-1)}), w).flatten(0, 1);
}

void addmm_inplace(const Tensor& acc, const Tensor& x, const Tensor& w, int64_t k) {
  if (k == 0) {
    acc.addmm_(x, w);
    return;
  }
  acc.view({k, -1, acc.size(-1)}).baddbmm_(x.view({k, -1, x.size(-1)}), w);
}

// A (B, I, J) tensor, read through its strides.
template <typename T>
struct Cube {
  T* data;
  int64_t s0, s1, s2;
  explicit Cube(const Tensor& x)
      : data(x.data_ptr<T>()), s0(x.stride(0)), s1(x.stride(1)), s2(x.stride(2)) {}
  T& operator()(int64_t b, int64_t i, int64_t j) const { return data[b * s0 + i * s1 + j * s2]; }
};

// out[b, i, j] (+)= sum over c of x[b, i, c] y[b, c, j], as ATen's small-product loop:
// each entry's sum from 0 over c in order, then added to out's entry. Where y's columns
// are contiguous, a whole row's sums at once (c outer, j inner, in vector lanes), which
// changes no entry's arithmetic.
template <typename T, bool add>
void small_bmm(const Tensor& out, const Tensor& x, const Tensor& y) {
  const Cube<T> o(out), a(x), b(y);
  const int64_t batch = x.size(0), rows = x.size(1), inner = x.size(2), cols = y.size(2);
  std::vector<T> acc(cols);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t i = 0; i < rows; ++i) {
      T* sums = acc.data();
      std::fill(sums, sums + cols, T(0));
      if (b.s2 == 1) {
        for (int64_t c = 0; c < inner; ++c) {
          const T factor = a(n, i, c);
          const T* column = &b(n, c, 0);
          for (int64_t j = 0; j < cols; ++j) sums[j] += factor * column[j];
        }
      } else {
        for (int64_t j = 0; j < cols; ++j) {
          for (int64_t c = 0; c < inner; ++c) sums[j] += a(n, i, c) * b(n, c, j);
        }
      }
      for (int64_t j = 0; j < cols; ++j) o(n, i, j) = add ? o(n, i, j) + sums[j] : sums[j];
    }
  }
}

// The small product into out (B, I, J) (add: onto it); false, and nothing done, where
// the product is not small.
bool small_bmm_into(const Tensor& out, const Tensor& x, const Tensor& y, bool add) {
  if (!small_product(x.size(2), x.size(1), y.size(2))) return false;
  AT_DISPATCH_FLOATING_TYPES(out.scalar_type(), "small_bmm", [&] {
    if (add) {
      small_bmm<scalar_t, true>(out, x, y);
    } else {
      small_bmm<scalar_t, false>(out, x, y);
    }
  });
  return true;
}

// bmm into out (B, I, J) or baddbmm_ onto it: ATen's own where the product is not small.
void bmm_into(const Tensor& out, const Tensor& x, const Tensor& y, bool add) {
  if (small_bmm_into(out, x, y, add)) return;
  if (add) {
    out.baddbmm_(x, y);
  } else {
    at::bmm_out(into(out), x, y);
  }
}

// The reads of products.py: one controller's a product, K members' a broadcast product
// and sum per end.
void read(const Tensor& w, const Tensor& values, const Tensor& out, int64_t k) {
  if (k > 0) {
    const int64_t m = values.size(2);
    for (int64_t end = 0; end < w.size(0); ++end) {
      at::sum_out(into(out.slice(1, end * m, (end + 1) * m)), values * w[end].unsqueeze(-1),
                  {1});
    }
    return;
  }
  const Tensor x = w.transpose(0, 1);
  // ATen's bmm into the strided ``out`` would take another kernel: it gets a copy.
  if (!small_bmm_into(out.unflatten(1, {x.size(1), values.size(2)}), x, values, false)) {
    out.copy_(at::bmm(x, values).flatten(1));
  }
}

void add_read_grad(const Tensor& d_values, const Tensor& w, const Tensor& d_r, int64_t k) {
  if (k > 0) {
    for (int64_t end = 0; end < w.size(0); ++end) {
      d_values.addcmul_(w[end].unsqueeze(-1), d_r.select(1, end).unsqueeze(1));
    }
    return;
  }
  bmm_into(d_values, w.permute({1, 2, 0}), d_r, true);
}

// A (B, n) matrix of rows, read through its strides.
template <typename T>
struct Rows {
  T* data;
  int64_t row, col;
  explicit Rows(const Tensor& x)
      : data(x.data_ptr<T>()), row(x.stride(0)), col(x.stride(1)) {}
  T& operator()(int64_t b, int64_t i) const { return data[b * row + i * col]; }
};

// The memory's step (steps.ForwardSteps and BackwardSteps), row by row in plain loops:
// the same arithmetic in the same order as their tensor operations. ATen's cumulative
// sum on a CPU adds in double and rounds each partial sum, so ``sums_from`` does too; a
// max(0, x) is x < 0 ? 0 : x (NaN passes, as clamp_min lets it). Zeros may differ in
// sign from the tensor operations', which changes no sum or product that is not zero.
template <typename T>
T relu(T x) {
  return x < 0 ? T(0) : x;
}

// Visits i = lo .. hi-1 from one end (high: hi-1 first) with A_i, the sum of x over the
// rows already visited (those between row i and that end), as a cumulative sum from that
// end rounds it. The rows outside [lo, hi) are the memory's empty ones: their strengths
// are exactly 0 and so add nothing to any sum, which is why the loops leave them out.
template <typename T, typename F>
void sums_from(bool high, int64_t lo, int64_t hi, const T* x, int64_t stride, F visit) {
  double acc = 0;
  for (int64_t k = lo; k < hi; ++k) {
    const int64_t i = high ? hi - 1 - (k - lo) : k;
    visit(i, static_cast<T>(acc));
    acc += x[i * stride];
  }
}

template <typename T>
void memory_forward(const Tensor& before, const Tensor& after, const Tensor& mid,
                    const Tensor& q, const Tensor& weights_t, int64_t em,
                    const std::vector<bool>& ends_high, const std::vector<int64_t>& pushed,
                    int64_t lo, int64_t hi) {
  const int64_t rows = before.size(0);
  const int64_t e = static_cast<int64_t>(ends_high.size());
  const Rows<T> s_in(before), s_out(after), s_mid(mid), gates(q);
  std::vector<Rows<T>> read_weights;  // each end's (B, n) view, taken once, not per row
  for (int64_t end = 0; end < e; ++end) read_weights.emplace_back(weights_t[end]);
  for (int64_t b = 0; b < rows; ++b) {
    // Pop each end, top first: s'_i = max(0, s_i - max(0, u - A_i)).
    const Rows<T>* src = &s_in;
    for (int64_t end = 0; end < e; ++end) {
      const Rows<T>* dst = end == e - 1 ? &s_out : &s_mid;
      const T u = gates(b, em + e + end);
      sums_from<T>(ends_high[end], lo, hi, &(*src)(b, 0), src->col, [&](int64_t i, T a) {
        (*dst)(b, i) = relu<T>((*src)(b, i) - relu<T>(u - a));
      });
      src = dst;
    }
    for (int64_t end = 0; end < e; ++end) s_out(b, pushed[end]) = gates(b, em + end);
    // Read weights of each end: w_i = min(s_i, max(0, 1 - A_i)).
    for (int64_t end = 0; end < e; ++end) {
      const Rows<T>& w = read_weights[end];
      sums_from<T>(ends_high[end], lo, hi, &s_out(b, 0), s_out.col, [&](int64_t i, T a) {
        const T room = relu<T>(T(1) - a), s = s_out(b, i);
        w(b, i) = std::isnan(s) ? s : (s < room ? s : room);
      });
    }
  }
}

// One step of steps.BackwardSteps on d_s (B, n), rows in its order, with the 0/1
// factors of layout.backward_masks computed as it goes from the strengths s_{t-1}
// (``before``) and s_t (``after``) and the pops (in ``q``, after ``em`` values and E
// pushes), all in the forward's row order. ``grad_weights`` (B, E, n) is dL/d(read
// weights) in the forward's row order; ``reach`` is scratch for the sums that give
// dL/dpop. Rows are read from the far end where ``reversed``. Only the rows [lo, hi)
// (forward order) written up to this step are visited: the others' strengths are 0
// before and after it, so their masks are 0 and they add nothing to the other rows'
// gradients. Their own entries of d_s, which no later step reads, are left as they are;
// their entries of ``reach`` still hold the 0 written at the step that pushed them (the
// first step of the backward visits every row).
template <typename T>
void memory_backward(const Tensor& d_s, const Tensor& grad_weights, bool reversed,
                     const Tensor& before, const Tensor& after, const Tensor& q, int64_t em,
                     const Tensor& reach, const Tensor& grad_push, const Tensor& grad_pop,
                     const std::vector<bool>& ends_high, const std::vector<bool>& from_high,
                     const std::vector<int64_t>& pushed_columns, int64_t lo, int64_t hi) {
  const int64_t rows = d_s.size(0), n = d_s.size(1);
  // the window in the backward's row order
  const int64_t b_lo = reversed ? n - hi : lo, b_hi = reversed ? n - lo : hi;
  const int64_t e = static_cast<int64_t>(from_high.size());
  const Rows<T> grad(d_s), push(grad_push), cut(reach), s_before(before), s_after(after);
  const Rows<T> gates(q);
  // The masks of one row, by end, in the backward's row order; and two rows of scratch
  // for the strengths between a deque's pops.
  std::vector<T> pos(e * n), over(e * n), s_now(n), s_next(n);
  // The pops' masks of every row, by end: the second loop below runs end by end.
  std::vector<T> keep(e * rows * n), take(e * rows * n);
  T* dw = grad_weights.data_ptr<T>();
  const int64_t dw_b = grad_weights.stride(0), dw_e = grad_weights.stride(1);
  const int64_t dw_i = grad_weights.stride(2);
  auto in_order = [&](int64_t i) { return reversed ? n - 1 - i : i; };
  for (int64_t b = 0; b < rows; ++b) {
    // The read weights' masks: w = min(s, max(0, 1 - A)) has a slope (pos) where w = s
    // (ties included) or A < 1, and is 1 - A (over) where A < 1 and s > room.
    for (int64_t end = 0; end < e; ++end) {
      sums_from<T>(ends_high[end], lo, hi, &s_after(b, 0), s_after.col, [&](int64_t i, T a) {
        const T room = relu<T>(T(1) - a);
        const bool left = s_after(b, i) <= room, free = a < T(1);
        pos[end * n + in_order(i)] = static_cast<T>(left || free);
        over[end * n + in_order(i)] = static_cast<T>(free && !left);
      });
    }
    // The pops' masks: the pop reaches into the row (take), the row survives it (keep).
    for (int64_t i = lo; i < hi; ++i) s_now[i] = s_before(b, i);
    for (int64_t end = 0; end < e; ++end) {
      const T u = gates(b, em + e + end);
      sums_from<T>(ends_high[end], lo, hi, s_now.data(), 1, [&](int64_t i, T a) {
        const T r = u - a;
        s_next[i] = relu<T>(s_now[i] - relu<T>(r));
        take[(end * rows + b) * n + in_order(i)] = static_cast<T>(r > 0);
        keep[(end * rows + b) * n + in_order(i)] = static_cast<T>(s_next[i] > 0);
      });
      std::swap(s_now, s_next);
    }

    for (int64_t end = 0; end < e; ++end) {
      const T* gw = dw + b * dw_b + end * dw_e;
      // grad += g, then grad -= the inclusive sum of g * over from the end
      double acc = 0;
      for (int64_t k = b_lo; k < b_hi; ++k) {
        const int64_t i = from_high[end] ? b_hi - 1 - (k - b_lo) : k;
        const T gi = gw[in_order(i) * dw_i] * pos[end * n + i];
        acc += gi * over[end * n + i];
        grad(b, i) = (grad(b, i) + gi) - static_cast<T>(acc);
      }
    }
    for (int64_t end = 0; end < e; ++end) {
      T& column = grad(b, pushed_columns[end]);
      push(b, end) = column;
      column = T(0);  // a pushed row's strength is d_t, whatever the pops left there
    }
  }
  for (int64_t end = e - 1; end >= 0; --end) {
    for (int64_t b = 0; b < rows; ++b) {
      const T* kp = keep.data() + (end * rows + b) * n;
      const T* tk = take.data() + (end * rows + b) * n;
      double acc = 0;
      for (int64_t k = b_lo; k < b_hi; ++k) {
        const int64_t i = from_high[end] ? b_hi - 1 - (k - b_lo) : k;
        const T g = grad(b, i) * kp[i];
        const T r = g * tk[i];
        cut(b, i) = r;
        acc += r;
        grad(b, i) = (g - r) + static_cast<T>(acc);
      }
    }
    at::sum_out(into(grad_pop.select(1, end)), reach, {-1}).neg_();
  }
}

// dL/d of the memory projections' pre-activations: dq *= tanh' of the values (the first
// em columns) and sigmoid' of the gates, from q, the values and gates after them.
template <typename T>
void projections_backward(const Tensor& dq, const Tensor& q, int64_t em) {
  const Rows<T> d(dq), x(q);
  for (int64_t b = 0; b < dq.size(0); ++b) {
    for (int64_t j = 0; j < dq.size(1); ++j) {
      const T v = x(b, j);
      d(b, j) *= j < em ? T(1) - v * v : v * (T(1) - v);
    }
  }
}

// An LSTM cell's step backward: from dL/dh_t (d_h) and dL/dc_t (d_c), dL/dz_t into dz
// (the gates i, f, g, o before their sigmoid or tanh) and dL/dc_{t-1} into d_c; ``a``
// holds the gates after them, ``c_prev`` c_{t-1} and ``tanh_c`` tanh(c_t). dc += dh o
// tanh'(c) is ATen's addcmul, which rounds once (a fused multiply-add), into scratch
// ``o_tanh``.
template <typename T>
void lstm_backward(const Tensor& d_h, const Tensor& d_c, const Tensor& dz, const Tensor& a,
                   const Tensor& c_prev, const Tensor& tanh_c, const Tensor& o_tanh,
                   int64_t hid) {
  const Rows<T> dh(d_h), dc(d_c), z(dz), act(a), cp(c_prev), tc(tanh_c), ot(o_tanh);
  const int64_t rows = d_h.size(0);
  for (int64_t b = 0; b < rows; ++b) {
    for (int64_t j = 0; j < hid; ++j) {
      const T t = tc(b, j);
      ot(b, j) = act(b, 3 * hid + j) * (T(1) - t * t);
    }
  }
  d_c.addcmul_(d_h, o_tanh);
  for (int64_t b = 0; b < rows; ++b) {
    for (int64_t j = 0; j < hid; ++j) {
      const T i = act(b, j), f = act(b, hid + j), g = act(b, 2 * hid + j);
      const T o = act(b, 3 * hid + j), c_grad = dc(b, j);
      z(b, j) = (c_grad * g) * (i * (T(1) - i));
      z(b, hid + j) = (c_grad * cp(b, j)) * (f * (T(1) - f));
      z(b, 2 * hid + j) = (c_grad * i) * (T(1) - g * g);
      z(b, 3 * hid + j) = (dh(b, j) * tc(b, j)) * (o * (T(1) - o));
      dc(b, j) = c_grad * f;
    }
  }
}

// An Elman cell's step backward: dz = d_h tanh'(z), from h_t = tanh(z).
template <typename T>
void elman_backward(const Tensor& d_h, const Tensor& dz, const Tensor& h) {
  const Rows<T> dh(d_h), z(dz), x(h);
  for (int64_t b = 0; b < d_h.size(0); ++b) {
    for (int64_t j = 0; j < d_h.size(1); ++j) z(b, j) = dh(b, j) * (T(1) - x(b, j) * x(b, j));
  }
}

}  // namespace

// fused.forward's loop over t, with steps.ForwardSteps for the memory. Tensors a model
// does not have (an Elman cell's c, a run without an o' layer or gate noise) are
// undefined; every other argument is the Python loop's tensor of the same name.
void forward_loop(const Tensor& xw_t, const Tensor& rh, const Tensor& acts,
                  const Maybe& cells_, const Maybe& tanh_c_, const Maybe& p_all_,
                  const Tensor& q_all, const Tensor& strengths, const Tensor& weights,
                  const Tensor& values, const Tensor& w_rec_t, const Maybe& w_p_t_,
                  const Maybe& b_p_, const Tensor& w_q_t, const Tensor& b_q,
                  const Maybe& noise_, int64_t hid, int64_t m, int64_t k,
                  const std::vector<bool>& ends_high, const Lines& push_lines,
                  const Lines& windows) {
  // Every tensor here is a buffer of the operator, outside autograd: below the autograd
  // and view-tracking keys a view is only sizes and strides, with no autograd metadata.
  const at::AutoDispatchBelowADInplaceOrView below_autograd;
  const Tensor cells = given(cells_), tanh_c = given(tanh_c_), p_all = given(p_all_);
  const Tensor w_p_t = given(w_p_t_), b_p = given(b_p_), noise = given(noise_);
  const int64_t steps = xw_t.size(0), batch = xw_t.size(1);
  const int64_t e = static_cast<int64_t>(ends_high.size()), em = e * m;
  const bool lstm = cells.defined();
  const Tensor hs = rh.slice(0, 1).slice(2, em);
  const Tensor mid = at::empty_like(strengths[0]);  // s between a deque's two pops
  std::vector<int64_t> pushed(e);  // the row each end pushes to at step t
  Tensor z, fc;
  if (lstm) {
    z = rh.new_empty({batch, acts.size(-1)});
    fc = rh.new_empty({batch, hid});
  }
  for (int64_t t = 0; t < steps; ++t) {
    const Tensor h = hs[t];
    if (lstm) {
      const Tensor a = acts[t];
      addmm_into(z, xw_t[t], rh[t], w_rec_t, k);
      at::sigmoid_out(into(a), z);
      at::tanh_out(into(a.slice(1, 2 * hid, 3 * hid)), z.slice(1, 2 * hid, 3 * hid));
      at::mul_out(into(fc), a.slice(1, hid, 2 * hid), cells[t]);
      const Tensor c = cells[t + 1];
      at::addcmul_out(into(c), fc, a.slice(1, 0, hid), a.slice(1, 2 * hid, 3 * hid));
      at::mul_out(into(h), a.slice(1, 3 * hid, 4 * hid), at::tanh_out(into(tanh_c[t]), c));
    } else {
      at::tanh_out(into(h), addmm(xw_t[t], rh[t], w_rec_t, k));
    }
    Tensor p = h;
    if (w_p_t.defined()) {
      p = p_all[t];
      at::tanh_out(into(p), addmm(b_p, h, w_p_t, k));
    }
    const Tensor q = q_all[t];
    addmm_into(q, b_q, p, w_q_t, k);
    q.slice(1, 0, em).tanh_();
    const Tensor gates = q.slice(1, em);
    if (noise.defined()) gates.add_(noise.select(1, t));
    gates.sigmoid_();

    // The memory: pop each end (top first), push, then the read weights of each end.
    for (int64_t end = 0; end < e; ++end) {
      pushed[end] = push_lines[end].first + push_lines[end].second * t;
    }
    AT_DISPATCH_FLOATING_TYPES(strengths.scalar_type(), "memory_forward", [&] {
      memory_forward<scalar_t>(strengths[t], strengths[t + 1], mid, q, weights[t], em,
                               ends_high, pushed, windows[t].first, windows[t].second);
    });
    for (int64_t end = 0; end < e; ++end) {
      values.select(1, pushed[end]).copy_(q.slice(1, end * m, (end + 1) * m));
    }
    const int64_t lo = windows[t].first, hi = windows[t].second;
    read(weights[t].narrow(2, lo, hi - lo), values.narrow(1, lo, hi - lo),
         rh[t + 1].slice(1, 0, em), k);
  }
}

// fused.backward's loop over t, from the last step, with steps.BackwardSteps for the
// memory. The memory's row-indexed tensors (d_s, d_values, weights_b) are in the order
// BackwardSteps keeps them (rows reversed where ``reversed`` says so). Returns
// (d_s, d_r, d_h): the tensors the Python loop leaves in those names.
std::vector<Tensor> backward_loop(
    const Tensor& d_s_in, const Tensor& d_r_in, const Tensor& d_h_in, const Maybe& d_c_,
    const Tensor& d_values, const Tensor& values_t, const Tensor& weights_b,
    const Tensor& strengths, const Tensor& d_q, const Tensor& q_all, const Maybe& grad_p_,
    const Maybe& grad_gates_, const Tensor& w_q, const Maybe& w_p_, const Maybe& p_slope_,
    const Maybe& d_pre_, const Tensor& d_z, const Tensor& acts, const Maybe& cells_,
    const Maybe& tanh_c_, const Tensor& w_rec, int64_t hid, int64_t m, int64_t k,
    bool reversed, const std::vector<bool>& ends_high, const std::vector<bool>& from_high,
    const Lines& push_lines, const Lines& windows) {
  const at::AutoDispatchBelowADInplaceOrView below_autograd;  // as in forward_loop
  const Tensor d_c = given(d_c_), grad_p = given(grad_p_), grad_gates = given(grad_gates_);
  const Tensor w_p = given(w_p_), p_slope = given(p_slope_), d_pre = given(d_pre_);
  const Tensor cells = given(cells_), tanh_c = given(tanh_c_);
  const int64_t steps = d_q.size(0), n = d_s_in.size(1);
  const int64_t e = static_cast<int64_t>(ends_high.size()), em = e * m;
  Tensor d_s = d_s_in, d_r = d_r_in, d_h = d_h_in;
  const Tensor reach = at::empty_like(d_s);  // scratch of the memory's backward
  const Tensor d_w = d_s.new_empty({d_s.size(0), e, n});  // dL/d(read weights) at step t
  const Tensor o_tanh = d_c.defined() ? at::empty_like(d_c) : Tensor();  // and the cell's
  std::vector<int64_t> columns(e);  // the column of d_s each end pushed to at step t
  const Tensor grad_push = d_q.slice(2, em, em + e), grad_pop = d_q.slice(2, em + e);
  for (int64_t t = steps - 1; t >= 0; --t) {
    const int64_t lo = windows[t].first, hi = windows[t].second;
    bmm_into(d_w, d_r, values_t, false);
    add_read_grad(d_values, weights_b[t], d_r, k);
    for (int64_t end = 0; end < e; ++end) {
      const int64_t row = push_lines[end].first + push_lines[end].second * t;
      columns[end] = reversed ? n - 1 - row : row;
    }
    AT_DISPATCH_FLOATING_TYPES(d_s.scalar_type(), "memory_backward", [&] {
      memory_backward<scalar_t>(d_s, d_w, reversed, strengths[t], strengths[t + 1], q_all[t],
                                em, reach, grad_push[t], grad_pop[t], ends_high, from_high,
                                columns, lo, hi);
    });

    for (int64_t end = 0; end < e; ++end) {
      d_q[t].slice(1, end * m, (end + 1) * m).copy_(d_values.select(1, columns[end]));
    }
    const Tensor dq = d_q[t];
    if (grad_gates.defined()) dq.slice(1, em).add_(grad_gates[t]);
    AT_DISPATCH_FLOATING_TYPES(dq.scalar_type(), "projections_backward", [&] {
      projections_backward<scalar_t>(dq, q_all[t], em);
    });
    const Tensor d_p = grad_p.defined() ? addmm(grad_p[t], dq, w_q, k) : mm(dq, w_q, k);
    if (d_pre.defined()) {
      addmm_inplace(d_h, at::mul_out(into(d_pre[t]), d_p, p_slope[t]), w_p, k);
    } else {
      d_h.add_(d_p);
    }
    const Tensor dz = d_z[t];
    AT_DISPATCH_FLOATING_TYPES(dz.scalar_type(), "cell_backward", [&] {
      if (d_c.defined()) {
        lstm_backward<scalar_t>(d_h, d_c, dz, acts[t], cells[t], tanh_c[t], o_tanh, hid);
      } else {
        elman_backward<scalar_t>(d_h, dz, acts[t]);
      }
    });
    const Tensor d_rh = mm(dz, w_rec, k);
    d_r = d_rh.slice(1, 0, em).unflatten(1, {e, m});
    d_h = d_rh.slice(1, em);
  }
  return {d_s, d_r, d_h};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, module) {
  module.def("forward_loop", &forward_loop, "fused.forward's loop over t");
  module.def("backward_loop", &backward_loop, "fused.backward's loop over t");
}
