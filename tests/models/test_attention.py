"""The grouped Transformer's self-attention: the compiled kernels (``attention.cpp``)
against ATen's operations (``reference_attention``), and which of the two runs where."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from memrnn.models.attention import CompiledAttention, reference_attention, self_attention
from memrnn.models.controller.native import loops, python_loops
from memrnn.models.positional import alibi_bias, causal_bias

pytestmark = pytest.mark.skipif(loops(torch.zeros(())) is None, reason="no compiled loops")

# (rows, steps, heads, units per head, ALiBi): steps on both sides of the kernels' blocks
# of 8 keys and of 4 queries, heads of 8 units (the matrix's) and of other widths
SHAPES = [
    (3, 1, 1, 8, False),
    (2, 5, 2, 8, False),
    (4, 8, 4, 8, True),
    (3, 9, 2, 3, False),
    (5, 23, 4, 8, False),
    (2, 17, 3, 12, True),
    (2, 33, 2, 16, True),
]


def _case(rows: int, steps: int, heads: int, units: int, alibi: bool, dtype: torch.dtype,
          seed: int = 0) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    gen = torch.Generator().manual_seed(seed)
    qkv = torch.randn(rows, steps, 3 * heads * units, dtype=dtype, generator=gen)
    mask = alibi_bias(heads, steps, dtype=dtype) if alibi else causal_bias(steps, dtype=dtype)
    grad = torch.randn(rows, steps, heads * units, dtype=dtype, generator=gen)
    return qkv, mask, grad


def _run(attend: object, qkv: Tensor, mask: Tensor, heads: int, grad: Tensor
         ) -> tuple[Tensor, Tensor]:  # fmt: skip
    x = qkv.clone().requires_grad_()
    out = attend(x, mask, heads)  # type: ignore[operator]
    out.backward(grad)
    assert x.grad is not None
    return out.detach(), x.grad


@pytest.mark.parametrize(
    ("dtype", "tol"), [(torch.float64, 1e-12), (torch.float32, 2e-5)], ids=["f64", "f32"]
)
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_output_and_gradient_match_atens(
    shape: tuple[int, int, int, int, bool], dtype: torch.dtype, tol: float
) -> None:
    heads = shape[2]
    qkv, mask, grad = _case(*shape, dtype)
    got = _run(self_attention, qkv, mask, heads, grad)
    want = _run(reference_attention, qkv, mask, heads, grad)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=tol, atol=tol)


def test_gradcheck() -> None:
    qkv, mask, _ = _case(2, 6, 2, 3, True, torch.float64)
    qkv.requires_grad_()
    assert torch.autograd.gradcheck(lambda x: CompiledAttention.apply(x, mask, 2), (qkv,))


def test_a_query_sees_no_later_step() -> None:
    """Changing the last step's queries, keys and values leaves every earlier step's output
    as it was, bit for bit: the masked weights are exactly 0."""
    qkv, mask, _ = _case(3, 11, 2, 8, False, torch.float32)
    before = self_attention(qkv, mask, 2)
    changed = qkv.clone()
    changed[:, -1] = 1e3
    after = self_attention(changed, mask, 2)
    assert torch.equal(before[:, :-1], after[:, :-1])
    assert not torch.equal(before[:, -1], after[:, -1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(3, 9, 2, 3, False), (2, 23, 4, 8, True), (2, 33, 2, 16, False)])
def test_the_terms_a_mask_hides_are_left_out_exactly(
    shape: tuple[int, int, int, int, bool], dtype: torch.dtype
) -> None:
    """The kernels leave out the keys a mask's -inf hides from a query, whose weights are
    exactly 0. With -1e30 there instead (weights exactly 0 too, but no key left out) every
    output and gradient is the same bit for bit."""
    heads = shape[2]
    qkv, mask, grad = _case(*shape, dtype)
    hidden_by_large = mask.masked_fill(mask == float("-inf"), -1e30)
    left_out = _run(self_attention, qkv, mask, heads, grad)
    all_in = _run(self_attention, qkv, hidden_by_large, heads, grad)
    assert all(torch.equal(a, b) for a, b in zip(left_out, all_in, strict=True))


def test_a_mask_that_is_not_causal() -> None:
    """Queries that see keys after their own step, and keys hidden between seen ones: the
    kernels still match ATen's."""
    qkv, _, grad = _case(3, 13, 2, 8, False, torch.float64)
    gen = torch.Generator().manual_seed(4)
    hidden = torch.rand(2, 13, 13, generator=gen) < 0.4
    hidden &= ~torch.eye(13, dtype=torch.bool)  # each query sees at least itself
    mask = torch.zeros(2, 13, 13, dtype=torch.float64).masked_fill(hidden, float("-inf"))
    got = _run(self_attention, qkv, mask, 2, grad)
    want = _run(reference_attention, qkv, mask, 2, grad)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-12, atol=1e-12)


def test_the_thread_count_changes_no_number() -> None:
    qkv, mask, grad = _case(64, 23, 4, 8, False, torch.float32)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = _run(self_attention, qkv, mask, 4, grad)
        torch.set_num_threads(2)
        two = _run(self_attention, qkv, mask, 4, grad)
    finally:
        torch.set_num_threads(threads)
    assert all(torch.equal(a, b) for a, b in zip(one, two, strict=True))


def test_the_reference_runs_without_the_compiled_loops() -> None:
    qkv, mask, grad = _case(3, 7, 2, 4, True, torch.float32)
    with python_loops():
        got = _run(self_attention, qkv, mask, 2, grad)
    want = _run(reference_attention, qkv, mask, 2, grad)
    assert all(torch.equal(a, b) for a, b in zip(got, want, strict=True))


def test_a_non_contiguous_gradient() -> None:
    qkv, mask, grad = _case(3, 9, 2, 8, False, torch.float64)
    x = qkv.clone().requires_grad_()
    out = self_attention(x, mask, 2)
    strided = grad.transpose(0, 1).contiguous().transpose(0, 1)  # same values, other strides
    out.backward(strided)
    assert x.grad is not None
    torch.testing.assert_close(x.grad, _run(reference_attention, qkv, mask, 2, grad)[1])
