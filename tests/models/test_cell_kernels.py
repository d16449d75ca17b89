"""The grouped LSTM's, A-LSTM's and GRU's compiled loops (``lstm.cpp``, ``gru.cpp``):
their sigmoid and tanh (``lanes.h``), and the loops against the Python ones (ATen's
operations) to rounding."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from memrnn.models.controller.native import loops, python_loops
from memrnn.models.grouped_baselines import AttentionSequence
from memrnn.models.grouped_gru import GRUSequence, gru_states
from memrnn.models.grouped_lstm import LSTMSequence

pytestmark = pytest.mark.skipif(loops(torch.zeros(())) is None, reason="no compiled loops")

# (members, batch, steps, units): units on both sides of the kernels' blocks of 8
SHAPES = [(1, 1, 1, 8), (2, 3, 5, 5), (3, 4, 9, 13), (2, 3, 6, 16), (8, 32, 23, 32)]
# float32: a few units in the last place of numbers of order one, through T steps
TOLERANCE = {
    torch.float32: {"rtol": 1e-4, "atol": 1e-5},
    torch.float64: {"rtol": 1e-11, "atol": 1e-12},
}


def _gates(x: Tensor) -> Tensor:
    """The compiled forward's gates after their sigmoid or tanh for pre-activations i, f,
    g and o all equal to x (1-D, a multiple of 8 long), with no recurrent weights."""
    native = loops(x)
    assert native is not None
    xw = x.view(1, -1, 1, 8).repeat(1, 1, 1, 4)  # R = 8 units a row
    _, acts, _, _ = native.lstm_sequence_forward(xw, torch.zeros(1, 32, 8, dtype=x.dtype))
    return acts.view(-1, 32)


def test_sigmoid_and_tanh_in_float32_are_within_two_units_in_the_last_place() -> None:
    x = torch.cat([torch.linspace(-100, 100, 200_000), torch.logspace(-30, 1, 3_000),
                   -torch.logspace(-30, 1, 3_000)])  # fmt: skip
    acts = _gates(x)
    sigmoid, tanh = acts[:, :8].flatten(), acts[:, 16:24].flatten()
    exact = x.double()
    for got, want in ((sigmoid, torch.sigmoid(exact)), (tanh, torch.tanh(exact))):
        seen = want.abs() > 1e-30  # below that, within 1e-30 (0 or subnormal) is enough
        err = (got.double() - want.float().double()).abs()
        assert (err / want.abs())[seen].max() <= 2.5 * torch.finfo(torch.float32).eps
        assert err[~seen].le(1e-30).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_sigmoid_and_tanh_at_the_ends_and_on_nan(dtype: torch.dtype) -> None:
    inf = float("inf")
    x = torch.tensor([inf, -inf, 0.0, -0.0, 200.0, -200.0, 88.0, -88.0], dtype=dtype)
    acts = _gates(x)
    sigmoid, tanh = acts[0, :8], acts[0, 16:24]
    assert sigmoid[:4].tolist() == [1.0, 0.0, 0.5, 0.5]
    assert tanh[:4].tolist() == [1.0, -1.0, 0.0, 0.0]
    torch.testing.assert_close(sigmoid, torch.sigmoid(x), rtol=3e-7, atol=1e-38)
    torch.testing.assert_close(tanh, torch.tanh(x), rtol=3e-7, atol=0.0)
    assert _gates(torch.full((8,), float("nan"), dtype=dtype)).isnan().all()


def _lstm(xw: Tensor, w_hh: Tensor, grad: Tensor) -> list[Tensor]:
    leaves = [xw.clone().requires_grad_(), w_hh.clone().requires_grad_()]
    out = LSTMSequence.apply(*leaves)
    out.backward(grad)
    return [out.detach(), *(x.grad for x in leaves if x.grad is not None)]


def _lstm_case(k: int, b: int, t_len: int, r: int, dtype: torch.dtype,
               seed: int = 0) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    gen = torch.Generator().manual_seed(seed)
    xw = 3 * torch.randn(k, b, t_len, 4 * r, dtype=dtype, generator=gen)  # some saturated
    w_hh = torch.randn(k, 4 * r, r, dtype=dtype, generator=gen) / r**0.5
    return xw, w_hh, torch.randn(k, b, t_len, r, dtype=dtype, generator=gen)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_the_lstm_loops_agree_with_the_python_ones(shape: tuple[int, int, int, int],
                                                   dtype: torch.dtype) -> None:  # fmt: skip
    case = _lstm_case(*shape, dtype)
    compiled = _lstm(*case)
    with python_loops():
        reference = _lstm(*case)
    for name, got, want in zip(("states", "d xw", "d w_hh"), compiled, reference, strict=True):
        torch.testing.assert_close(got, want, **TOLERANCE[dtype], msg=name)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_the_alstm_loops_agree_with_the_python_ones(shape: tuple[int, int, int, int],
                                                    dtype: torch.dtype) -> None:  # fmt: skip
    k, b, t_len, r = shape
    gen = torch.Generator().manual_seed(1)

    def rand(*size: int, scale: float = 1.0) -> Tensor:
        return scale * torch.randn(*size, dtype=dtype, generator=gen)

    inputs = [rand(k, b, t_len, 4 * r, scale=3.0), rand(k, 1, 4 * r),
              rand(k, 2 * r, 4 * r, scale=r**-0.5), rand(k, r, r, scale=r**-0.5)]  # fmt: skip
    grad = rand(k, b, t_len, 2 * r)

    def once() -> list[Tensor]:
        leaves = [x.clone().requires_grad_() for x in inputs]
        out = AttentionSequence.apply(*leaves)
        out.backward(grad)
        return [out.detach(), *(x.grad for x in leaves if x.grad is not None)]

    compiled = once()
    with python_loops():
        reference = once()
    names = ("features", "d xw", "d bias", "d w_rec", "d w_query")
    for name, got, want in zip(names, compiled, reference, strict=True):
        torch.testing.assert_close(got, want, **TOLERANCE[dtype], msg=name)


def test_the_lstm_loops_change_no_number_with_the_thread_count() -> None:
    case = _lstm_case(8, 32, 7, 32, torch.float32)  # 256 rows: more than one task's share
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = _lstm(*case)
        torch.set_num_threads(2)
        two = _lstm(*case)
    finally:
        torch.set_num_threads(threads)
    assert all(torch.equal(a, b) for a, b in zip(one, two, strict=True))


def test_a_later_step_changes_no_earlier_state() -> None:
    xw, w_hh, grad = _lstm_case(2, 3, 9, 13, torch.float32)
    changed = xw.clone()
    changed[:, :, -1] += 1.0
    before, after = _lstm(xw, w_hh, grad)[0], _lstm(changed, w_hh, grad)[0]
    assert torch.equal(before[:, :, :-1], after[:, :, :-1])
    assert not torch.equal(before[:, :, -1], after[:, :, -1])


def test_strided_inputs_and_gradients() -> None:
    xw, w_hh, grad = _lstm_case(2, 3, 6, 5, torch.float64)
    strided = [x.transpose(0, 1).contiguous().transpose(0, 1) for x in (xw, w_hh, grad)]
    for got, want in zip(_lstm(*strided), _lstm(xw, w_hh, grad), strict=True):
        assert torch.equal(got, want)


def _gru_case(k: int, b: int, t_len: int, r: int, dtype: torch.dtype,
              seed: int = 0) -> list[Tensor]:  # fmt: skip
    """xw (K, B, T, 3R), w_hh (K, R, 3R), b_hh (K, 1, 3R) and dL/dh_t, some gates
    saturated."""
    gen = torch.Generator().manual_seed(seed)

    def rand(*size: int, scale: float = 1.0) -> Tensor:
        return scale * torch.randn(*size, dtype=dtype, generator=gen)

    return [rand(k, b, t_len, 3 * r, scale=3.0), rand(k, r, 3 * r, scale=r**-0.5),
            rand(k, 1, 3 * r), rand(k, b, t_len, r)]  # fmt: skip


def _gru(run: object, xw: Tensor, w_hh: Tensor, b_hh: Tensor, grad: Tensor) -> list[Tensor]:
    leaves = [x.clone().requires_grad_() for x in (xw, w_hh, b_hh)]
    out = run(*leaves)  # type: ignore[operator]
    out.backward(grad)
    return [out.detach(), *(x.grad for x in leaves if x.grad is not None)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_the_gru_loops_agree_with_autograds(shape: tuple[int, int, int, int],
                                            dtype: torch.dtype) -> None:  # fmt: skip
    case = _gru_case(*shape, dtype)
    compiled, reference = _gru(GRUSequence.apply, *case), _gru(gru_states, *case)
    names = ("states", "d xw", "d w_hh", "d b_hh")
    for name, got, want in zip(names, compiled, reference, strict=True):
        torch.testing.assert_close(got, want, **TOLERANCE[dtype], msg=name)


def test_the_gru_sequence_backward_is_the_gradient() -> None:
    xw, w_hh, b_hh, _ = _gru_case(2, 3, 4, 2, torch.float64, seed=1)
    leaves = tuple(x.requires_grad_() for x in (xw, w_hh, b_hh))
    assert torch.autograd.gradcheck(GRUSequence.apply, leaves)


def test_the_gru_loops_change_no_number_with_the_thread_count() -> None:
    case = _gru_case(8, 32, 7, 32, torch.float32)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = _gru(GRUSequence.apply, *case)
        torch.set_num_threads(2)
        two = _gru(GRUSequence.apply, *case)
    finally:
        torch.set_num_threads(threads)
    assert all(torch.equal(a, b) for a, b in zip(one, two, strict=True))


def test_the_gru_sequence_needs_the_compiled_loops() -> None:
    xw, w_hh, b_hh, _ = _gru_case(1, 2, 3, 4, torch.float32)
    with python_loops(), pytest.raises(RuntimeError, match="needs the compiled loops"):
        GRUSequence.apply(xw, w_hh, b_hh)
