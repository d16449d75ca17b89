// The grouped LSTM's and A-LSTM's time loops (memrnn.models.grouped_lstm.LSTMSequence,
// memrnn.models.grouped_baselines.AttentionSequence), compiled with the other loops (see
// native.py), with the LSTM cell's element-wise work done here.
//
// At the matrix's sizes (8 members, batch 32, 32 units) ATen's products are fast, but a
// cell step costs a dozen element-wise kernels over a few thousand numbers each, and
// ATen's float tanh runs at about 4 ns a number on these CPUs. Here a step's gates, cell
// and output, and its backward, are one pass over each row with vectorised sigmoid and
// tanh; the products stay ATen's. The numbers do not depend on the thread count; they
// are not ATen's bit for bit (the tests compare these loops with the Python ones, which
// are ATen's, in float64 and float32).

#include <ATen/Functions.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/LegacyTypeDispatch.h>

#include <algorithm>
#include <vector>

#include "lanes.h"

using at::Tensor;

namespace {

using namespace memrnn_lanes;

// One LSTM step (nn.LSTM's gate order i, f, g, o) of rows [begin, end) with r units,
// from the pre-activations and c_{t-1} (null: zero): the gates after their sigmoid or
// tanh, c_t, tanh(c_t) and h_t, and h_t again into h (a contiguous copy for the next
// step's product; null: none). Units j .. j + n - 1 of one row, n <= kLanes:
template <typename T, typename V>
MEMRNN_INLINE void cell_lanes(int64_t row, int64_t j, int64_t n, int64_t r, Plane<T> pre,
                              Plane<T> c_prev, Plane<T> act, Plane<T> cell, Plane<T> tanh_c,
                              Plane<T> state, Plane<T> h) {
  const T* z = pre(row) + j;
  T* a = act(row) + j;
  const V i = sigmoid_lanes(load<V>(z, n));
  store(a, i, n);
  const V f = sigmoid_lanes(load<V>(z + r, n));
  store(a + r, f, n);
  const V g = tanh_lanes(load<V>(z + 2 * r, n));
  store(a + 2 * r, g, n);
  const V before = c_prev.data ? load<V>(c_prev(row) + j, n) : V{};
  const V c = f * before + i * g;  // nn.LSTM's order of the sum
  store(cell(row) + j, c, n);
  const V tc = tanh_lanes(c);
  store(tanh_c(row) + j, tc, n);
  const V o = sigmoid_lanes(load<V>(z + 3 * r, n));
  store(a + 3 * r, o, n);
  const V out = o * tc;
  store(state(row) + j, out, n);
  if (h.data) store(h(row) + j, out, n);
}

template <typename T>
MEMRNN_CLONES void cell_forward(int64_t begin, int64_t end, int64_t r, Plane<T> pre,
                                Plane<T> c_prev, Plane<T> act, Plane<T> cell, Plane<T> tanh_c,
                                Plane<T> state, Plane<T> h) {
  typedef typename Vec<T>::type V;
  over_blocks(begin, end, r, [&](int64_t row, int64_t j, int64_t n) MEMRNN_ALWAYS {
    cell_lanes<T, V>(row, j, n, r, pre, c_prev, act, cell, tanh_c, state, h);
  });
}

// One LSTM step back for rows [begin, end): from dL/dh_t (d_h, plus d_h2 where not null)
// and the carry d_c (dL/dc_t through later steps, times their forget gates), dL/d gates
// into d_gate (and into d_pre, a contiguous copy for the product, where not null), and
// the carry for step t - 1 (the whole dL/dc_t times f_t) into d_c. Units j .. j + n - 1
// of one row, n <= kLanes:
template <typename T, typename V>
MEMRNN_INLINE void cell_back_lanes(int64_t row, int64_t j, int64_t n, int64_t r,
                                   Plane<T> d_h, Plane<T> d_h2, Plane<T> act,
                                   Plane<T> tanh_c, Plane<T> c_prev, Plane<T> d_c,
                                   Plane<T> d_gate, Plane<T> d_pre) {
  const T* a = act(row) + j;
  V dh = load<V>(d_h(row) + j, n);
  if (d_h2.data) dh += load<V>(d_h2(row) + j, n);
  const V i = load<V>(a, n), f = load<V>(a + r, n);
  const V g = load<V>(a + 2 * r, n), o = load<V>(a + 3 * r, n);
  const V tc = load<V>(tanh_c(row) + j, n);
  const V before = c_prev.data ? load<V>(c_prev(row) + j, n) : V{};
  const V dc = load<V>(d_c(row) + j, n) + dh * (o * (1 - tc * tc));
  const V dz[4] = {(dc * g) * (i * (1 - i)), (dc * before) * (f * (1 - f)),
                   (dc * i) * (1 - g * g), (dh * tc) * (o * (1 - o))};
  for (int64_t q = 0; q < 4; ++q) {
    store(d_gate(row) + q * r + j, dz[q], n);
    if (d_pre.data) store(d_pre(row) + q * r + j, dz[q], n);
  }
  store(d_c(row) + j, V(dc * f), n);
}

template <typename T>
MEMRNN_CLONES void cell_backward(int64_t begin, int64_t end, int64_t r, Plane<T> d_h,
                                 Plane<T> d_h2, Plane<T> act, Plane<T> tanh_c,
                                 Plane<T> c_prev, Plane<T> d_c, Plane<T> d_gate,
                                 Plane<T> d_pre) {
  typedef typename Vec<T>::type V;
  over_blocks(begin, end, r, [&](int64_t row, int64_t j, int64_t n) MEMRNN_ALWAYS {
    cell_back_lanes<T, V>(row, j, n, r, d_h, d_h2, act, tanh_c, c_prev, d_c, d_gate, d_pre);
  });
}

}  // namespace

// The kernels over every row of their planes (tensors of K B rows; undefined: absent);
// loops.cpp's memory-augmented LSTMs use them too.
namespace memrnn_lstm {

void step_forward(const Tensor& pre, const Tensor& c_prev, const Tensor& act,
                  const Tensor& cell, const Tensor& tanh_c, const Tensor& state,
                  const Tensor& h) {
  const int64_t r = cell.size(-1);
  at::parallel_for(0, rows_of(cell), kRowGrain, [&](int64_t begin, int64_t end) {
    AT_DISPATCH_FLOATING_TYPES(pre.scalar_type(), "lstm_cell_forward", [&] {
      cell_forward<scalar_t>(begin, end, r, plane<scalar_t>(pre), plane<scalar_t>(c_prev),
                             plane<scalar_t>(act), plane<scalar_t>(cell),
                             plane<scalar_t>(tanh_c), plane<scalar_t>(state),
                             plane<scalar_t>(h));
    });
  });
}

void step_backward(const Tensor& d_h, const Tensor& d_h2, const Tensor& act,
                   const Tensor& tanh_c, const Tensor& c_prev, const Tensor& d_c,
                   const Tensor& d_gate, const Tensor& d_pre) {
  const int64_t r = tanh_c.size(-1);
  at::parallel_for(0, rows_of(tanh_c), kRowGrain, [&](int64_t begin, int64_t end) {
    AT_DISPATCH_FLOATING_TYPES(act.scalar_type(), "lstm_cell_backward", [&] {
      cell_backward<scalar_t>(begin, end, r, plane<scalar_t>(d_h), plane<scalar_t>(d_h2),
                              plane<scalar_t>(act), plane<scalar_t>(tanh_c),
                              plane<scalar_t>(c_prev), plane<scalar_t>(d_c),
                              plane<scalar_t>(d_gate), plane<scalar_t>(d_pre));
    });
  });
}

}  // namespace memrnn_lstm

using memrnn_lstm::step_backward;
using memrnn_lstm::step_forward;

// LSTMSequence: xw (K, B, T, 4R) the input pre-activations, w_hh (K, 4R, R) -> the states,
// and the gates, cells and their tanh of every step, each (K, B, T, .).
std::vector<Tensor> lstm_sequence_forward(const Tensor& xw_in, const Tensor& w_hh) {
  const at::AutoDispatchBelowADInplaceOrView below_autograd;  // inside the node's forward
  const Tensor xw = xw_in.contiguous();
  const int64_t k = xw.size(0), batch = xw.size(1), steps = xw.size(2), four = xw.size(3);
  const auto options = xw.options();
  const Tensor states = at::empty({k, batch, steps, four / 4}, options);
  const Tensor acts = at::empty_like(xw);
  const Tensor cells = at::empty_like(states), tanhs = at::empty_like(states);
  const Tensor h = at::zeros({k, batch, four / 4}, options);
  const Tensor pre = at::empty({k, batch, four}, options);
  const Tensor w = w_hh.mT();
  for (int64_t t = 0; t < steps; ++t) {
    at::baddbmm_out(const_cast<Tensor&>(pre), at_step(xw, t), h, w);
    step_forward(pre, before_step(cells, t), at_step(acts, t), at_step(cells, t),
                 at_step(tanhs, t), at_step(states, t), h);
  }
  return {states, acts, cells, tanhs};
}

// LSTMSequence's backward: dL/d gates (K, B, T, 4R) from dL/dh_t and the forward's gates,
// cells and their tanh.
Tensor lstm_sequence_backward(const Tensor& d_states_in, const Tensor& acts, const Tensor& cells,
                              const Tensor& tanhs, const Tensor& w_hh) {
  const at::AutoDispatchBelowADInplaceOrView below_autograd;  // inside the node's backward
  const Tensor d_states = d_states_in.contiguous();
  const int64_t k = d_states.size(0), batch = d_states.size(1), steps = d_states.size(2);
  const Tensor d_gates = at::empty_like(acts);
  const Tensor d_pre = at::empty({k, batch, acts.size(3)}, acts.options());
  const Tensor d_h = at::zeros({k, batch, d_states.size(3)}, d_states.options());
  const Tensor d_c = at::zeros_like(d_h);
  for (int64_t t = steps - 1; t >= 0; --t) {
    step_backward(at_step(d_states, t), t + 1 < steps ? d_h : Tensor(), at_step(acts, t),
                  at_step(tanhs, t), before_step(cells, t), d_c, at_step(d_gates, t),
                  t > 0 ? d_pre : Tensor());
    if (t > 0) at::bmm_out(const_cast<Tensor&>(d_h), d_pre, w_hh);
  }
  return d_gates;
}

// AttentionSequence (the A-LSTM of Ba et al. 2016): the features [h_t ; context_t]
// (K, B, T, 2R), then what its backward keeps: the gates, cells and their tanh, the
// contexts (K, B, T, .), the states and queries (K B, T, R), the attention's weights
// (K B, T, T).
std::vector<Tensor> attention_sequence_forward(const Tensor& xw, const Tensor& bias,
                                               const Tensor& w_rec, const Tensor& w_query) {
  const at::AutoDispatchBelowADInplaceOrView below_autograd;  // inside the node's forward
  const int64_t k = xw.size(0), batch = xw.size(1), steps = xw.size(2), four = xw.size(3);
  const int64_t r = four / 4, rows = k * batch;
  const auto options = xw.options();
  const Tensor h = at::zeros({k, batch, r}, options);
  Tensor context = at::zeros_like(h);
  const Tensor acts = at::empty({k, batch, steps, four}, options);
  const Tensor cells = at::empty({k, batch, steps, r}, options);
  const Tensor tanhs = at::empty_like(cells), contexts = at::empty_like(cells);
  const Tensor states = at::empty({rows, steps, r}, options);
  const Tensor queries = at::empty({rows, steps, r}, options);
  const Tensor weights = at::zeros({rows, steps, steps}, options);
  for (int64_t t = 0; t < steps; ++t) {
    const Tensor gates = at::baddbmm(bias, at::cat({context, h}, -1), w_rec) + xw.select(2, t);
    step_forward(gates, before_step(cells, t), at_step(acts, t), at_step(cells, t),
                 at_step(tanhs, t), states.select(1, t), h);
    const Tensor past = states.slice(1, 0, t + 1);
    const Tensor query = at::bmm(h, w_query).view({rows, 1, r});
    queries.select(1, t).copy_(query.view({rows, r}));
    const Tensor w = at::softmax((past * query).sum(-1, true), 1);
    weights.select(1, t).slice(1, 0, t + 1).copy_(w.view({rows, t + 1}));
    context = (w * past).sum(1).view({k, batch, r});
    contexts.select(2, t).copy_(context);
  }
  const Tensor features = at::cat({states.view({k, batch, steps, r}), contexts}, -1);
  return {features, acts, cells, tanhs, contexts, states, queries, weights};
}

// AttentionSequence's backward: dL/d gates (K, B, T, 4R) and dL/d queries (K, B, T, R).
std::vector<Tensor> attention_sequence_backward(
    const Tensor& d_features, const Tensor& acts, const Tensor& cells, const Tensor& tanhs,
    const Tensor& states, const Tensor& queries, const Tensor& weights, const Tensor& w_rec,
    const Tensor& w_query) {
  const at::AutoDispatchBelowADInplaceOrView below_autograd;  // inside the node's backward
  const int64_t k = d_features.size(0), batch = d_features.size(1);
  const int64_t steps = d_features.size(2), r = states.size(2), rows = k * batch;
  const std::vector<Tensor> split = d_features.split(r, -1);  // direct, context direct
  const Tensor d_states = split[0].reshape({rows, steps, r}).clone();
  const Tensor d_gates = at::empty_like(acts);
  const Tensor d_pre = at::empty({k, batch, acts.size(3)}, acts.options());
  const Tensor d_queries = at::empty({k, batch, steps, r}, d_features.options());
  const Tensor d_c = at::zeros({k, batch, r}, d_features.options());
  Tensor d_rec = at::zeros({k, batch, 2 * r}, d_features.options());
  const Tensor w_rec_t = w_rec.mT(), w_query_t = w_query.mT();
  for (int64_t t = steps - 1; t >= 0; --t) {
    const Tensor past = states.slice(1, 0, t + 1);
    const Tensor w = weights.select(1, t).slice(1, 0, t + 1).unsqueeze(-1);
    const Tensor d_context =
        (split[1].select(2, t) + d_rec.slice(-1, 0, r)).view({rows, 1, r});
    const Tensor d_w = (past * d_context).sum(-1, true);
    const Tensor d_scores = w * (d_w - (w * d_w).sum(1, true));
    const Tensor query = queries.select(1, t).view({rows, 1, r});
    d_states.slice(1, 0, t + 1).add_(w * d_context + d_scores * query);
    const Tensor d_query = (d_scores * past).sum(1).view({k, batch, r});
    d_queries.select(2, t).copy_(d_query);
    Tensor d_h = d_states.select(1, t).view({k, batch, r}) + d_rec.slice(-1, r);
    d_h = at::baddbmm(d_h, d_query, w_query_t);
    step_backward(d_h, Tensor(), at_step(acts, t), at_step(tanhs, t), before_step(cells, t),
                  d_c, at_step(d_gates, t), t > 0 ? d_pre : Tensor());
    if (t > 0) d_rec = at::bmm(d_pre, w_rec_t);
  }
  return {d_gates, d_queries};
}
