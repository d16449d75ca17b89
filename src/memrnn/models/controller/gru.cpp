// The grouped GRU's recurrence (memrnn.models.grouped_gru.GRUSequence) over a whole
// sequence, forward and backward, compiled with the other loops (see native.py).
//
// Under autograd each GRU step is a dozen small operations, recorded and replayed
// backward one by one. Here a step is ATen's batched product and one pass over each row
// for the gates, the candidate and h_t; the backward runs back through time with one
// product and one pass a step, and forms the recurrent weights' gradient at the end as
// one product over all steps. Sigmoid and tanh are lanes.h's, so the numbers are not
// ATen's bit for bit (the tests compare them with the autograd loop in float64 and
// float32); they do not depend on the thread count.

#include <ATen/Functions.h>
#include <ATen/core/LegacyTypeDispatch.h>

#include <algorithm>
#include <vector>

#include "lanes.h"

using at::Tensor;

namespace {

using namespace memrnn_lanes;

// One GRU step (torch's gate order r, z, n) of units j .. j + n - 1 (n <= kLanes) of a
// row, from the input pre-activations x (b_ih included) and the recurrent ones g
// (b_hh included): r, z and the candidate into gate, g's candidate part W_hn h + b_hn
// into hn, and h_t = (h_{t-1} - cand) z + cand (torch's order) into state and h, which
// holds h_{t-1} before.
template <typename T, typename V>
MEMRNN_INLINE void step_lanes(int64_t row, int64_t j, int64_t n, int64_t r, Plane<T> x,
                              Plane<T> g, Plane<T> gate, Plane<T> hn, Plane<T> state,
                              Plane<T> h) {
  const T* a = x(row) + j;
  const T* b = g(row) + j;
  T* out = gate(row) + j;
  const V reset = sigmoid_lanes(load<V>(a, n) + load<V>(b, n));
  const V update = sigmoid_lanes(load<V>(a + r, n) + load<V>(b + r, n));
  const V rec = load<V>(b + 2 * r, n);
  const V cand = tanh_lanes(load<V>(a + 2 * r, n) + reset * rec);
  const V next = (load<V>(h(row) + j, n) - cand) * update + cand;
  store(out, reset, n);
  store(out + r, update, n);
  store(out + 2 * r, cand, n);
  store(hn(row) + j, rec, n);
  store(state(row) + j, next, n);
  store(h(row) + j, next, n);
}

template <typename T>
MEMRNN_CLONES void step_forward(int64_t begin, int64_t end, int64_t r, Plane<T> x,
                                Plane<T> g, Plane<T> gate, Plane<T> hn, Plane<T> state,
                                Plane<T> h) {
  typedef typename Vec<T>::type V;
  over_blocks(begin, end, r, [&](int64_t row, int64_t j, int64_t n) MEMRNN_ALWAYS {
    step_lanes<T, V>(row, j, n, r, x, g, gate, hn, state, h);
  });
}

// One GRU step back, units j .. j + n - 1 of a row: from dL/dh_t (d_state plus the carry
// d_h from later steps), the kept gates and hn and h_{t-1} (null: zero), dL/d of the
// input pre-activations into d_x, of the recurrent ones into d_g, and the part of
// dL/dh_{t-1} that skips the product, dL/dh_t z, into d_h.
template <typename T, typename V>
MEMRNN_INLINE void back_lanes(int64_t row, int64_t j, int64_t n, int64_t r,
                              Plane<T> d_state, Plane<T> gate, Plane<T> hn, Plane<T> before,
                              Plane<T> d_h, Plane<T> d_x, Plane<T> d_g) {
  const T* a = gate(row) + j;
  const V reset = load<V>(a, n), update = load<V>(a + r, n), cand = load<V>(a + 2 * r, n);
  const V dh = load<V>(d_state(row) + j, n) + load<V>(d_h(row) + j, n);
  const V h_prev = before.data ? load<V>(before(row) + j, n) : V{};
  const V d_cand = (dh * (1 - update)) * (1 - cand * cand);
  const V d_reset = (d_cand * load<V>(hn(row) + j, n)) * (reset * (1 - reset));
  const V d_update = (dh * (h_prev - cand)) * (update * (1 - update));
  T* dx = d_x(row) + j;
  T* dg = d_g(row) + j;
  store(dx, d_reset, n);
  store(dx + r, d_update, n);
  store(dx + 2 * r, d_cand, n);
  store(dg, d_reset, n);
  store(dg + r, d_update, n);
  store(dg + 2 * r, V(d_cand * reset), n);
  store(d_h(row) + j, V(dh * update), n);
}

template <typename T>
MEMRNN_CLONES void step_backward(int64_t begin, int64_t end, int64_t r, Plane<T> d_state,
                                 Plane<T> gate, Plane<T> hn, Plane<T> before, Plane<T> d_h,
                                 Plane<T> d_x, Plane<T> d_g) {
  typedef typename Vec<T>::type V;
  over_blocks(begin, end, r, [&](int64_t row, int64_t j, int64_t n) MEMRNN_ALWAYS {
    back_lanes<T, V>(row, j, n, r, d_state, gate, hn, before, d_h, d_x, d_g);
  });
}

}  // namespace

// GRUSequence: xw (K, B, T, 3R) the input pre-activations (b_ih included), w_hh
// (K, R, 3R) and b_hh (K, 1, 3R) -> the states h_t (K, B, T, R), and what the backward
// keeps: r, z and the candidate (K, B, T, 3R) and W_hn h_{t-1} + b_hn (K, B, T, R).
std::vector<Tensor> gru_sequence_forward(const Tensor& xw_in, const Tensor& w_hh,
                                         const Tensor& b_hh) {
  const at::AutoDispatchBelowADInplaceOrView below_autograd;  // inside the node's forward
  const Tensor xw = xw_in.contiguous();
  const int64_t k = xw.size(0), batch = xw.size(1), steps = xw.size(2), r = w_hh.size(1);
  const Tensor states = at::empty({k, batch, steps, r}, xw.options());
  const Tensor gates = at::empty_like(xw), hn = at::empty_like(states);
  const Tensor h = at::zeros({k, batch, r}, xw.options());
  const Tensor g = at::empty({k, batch, 3 * r}, xw.options());
  for (int64_t t = 0; t < steps; ++t) {
    at::baddbmm_out(const_cast<Tensor&>(g), b_hh, h, w_hh);
    at::parallel_for(0, k * batch, kRowGrain, [&](int64_t begin, int64_t end) {
      AT_DISPATCH_FLOATING_TYPES(xw.scalar_type(), "gru_step_forward", [&] {
        step_forward<scalar_t>(begin, end, r, plane<scalar_t>(at_step(xw, t)),
                               plane<scalar_t>(g), plane<scalar_t>(at_step(gates, t)),
                               plane<scalar_t>(at_step(hn, t)),
                               plane<scalar_t>(at_step(states, t)), plane<scalar_t>(h));
      });
    });
  }
  return {states, gates, hn};
}

// GRUSequence's backward: from dL/dh_t (K, B, T, R) and the forward's states and kept
// tensors, the gradients of xw (K, B, T, 3R), w_hh (K, R, 3R) and b_hh (K, 1, 3R).
std::vector<Tensor> gru_sequence_backward(const Tensor& d_states_in, const Tensor& gates,
                                          const Tensor& hn, const Tensor& states,
                                          const Tensor& w_hh) {
  const at::AutoDispatchBelowADInplaceOrView below_autograd;  // inside the node's backward
  const Tensor d_states = d_states_in.contiguous();
  const int64_t k = states.size(0), batch = states.size(1), steps = states.size(2);
  const int64_t r = states.size(3);
  const Tensor d_xw = at::empty_like(gates), d_g = at::empty_like(gates);
  const Tensor d_h = at::zeros({k, batch, r}, states.options());
  const Tensor w_t = w_hh.mT();
  for (int64_t t = steps - 1; t >= 0; --t) {
    const Tensor before = before_step(states, t);
    at::parallel_for(0, k * batch, kRowGrain, [&](int64_t begin, int64_t end) {
      AT_DISPATCH_FLOATING_TYPES(states.scalar_type(), "gru_step_backward", [&] {
        step_backward<scalar_t>(begin, end, r, plane<scalar_t>(at_step(d_states, t)),
                                plane<scalar_t>(at_step(gates, t)),
                                plane<scalar_t>(at_step(hn, t)), plane<scalar_t>(before),
                                plane<scalar_t>(d_h), plane<scalar_t>(at_step(d_xw, t)),
                                plane<scalar_t>(at_step(d_g, t)));
      });
    });
    if (t > 0) d_h.baddbmm_(at_step(d_g, t), w_t);
  }
  // h_{t-1} for every step, the zero state first
  const Tensor inputs = at::constant_pad_nd(states.slice(2, 0, steps - 1), {0, 0, 1, 0});
  const Tensor d_w = at::bmm(inputs.reshape({k, batch * steps, r}).mT(),
                             d_g.view({k, batch * steps, 3 * r}));
  return {d_xw, d_w, d_g.sum({1, 2}).unsqueeze(1)};
}
