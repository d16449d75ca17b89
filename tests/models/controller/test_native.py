"""The compiled time loops (``loops.cpp``) against the Python ones: the same forward
buffers and the same gradients, bit for bit, for every memory, cell and option of one
controller, and to rounding for K members at once, whose LSTM cell (``lstm.cpp``), reads
(``reads.cpp``) and grouped baselines' cells (``lstm.cpp``, ``gru.cpp``) round as ATen's
do not (``tests/models/test_cell_kernels.py``); and what happens where they cannot be
built."""

from __future__ import annotations

import itertools
import os
import shutil
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import torch
from torch import Tensor

from memrnn.models.controller import native
from memrnn.models.controller.fused import Shape, backward, forward
from memrnn.models.controller.native import loops, python_loops
from memrnn.structures.layout import Layout

CASES = list(itertools.product(("stack", "queue", "deque"), ("lstm", "rnn"), (True, False)))


def _case(memory: str, cell: str, o_prime: bool, members: int | None, start: int,
          dtype: torch.dtype, seed: int, t_len: int = 7, gate_scale: float = 1.0,
          m: int = 4, b: int = 3) -> tuple[list[Tensor | None], Shape, list]:  # fmt: skip
    """Random inputs of ``fused.forward`` and the gradients a backward starts from; the
    gates' weights times ``gate_scale`` (30 in float32: pushes and pops of exactly 1),
    memory width ``m``, batch ``b`` (per member)."""
    gen = torch.Generator().manual_seed(seed)
    hid = 5
    e = 2 if memory == "deque" else 1
    rows = b * (members or 1)
    lead = (members,) if members else ()

    def rand(*size: int, scale: float = 2.0) -> Tensor:
        return scale * torch.randn(*size, dtype=dtype, generator=gen)

    g = 4 * hid if cell == "lstm" else hid
    q = e * m + 2 * e
    layout = Layout(memory, t_len, start)  # type: ignore[arg-type]
    n0 = layout.carried[1] - layout.carried[0]
    carried = start > 0
    inputs = [
        rand(rows, t_len, g), rand(rows, hid), rand(rows, hid) if cell == "lstm" else None,
        rand(*lead, g, e * m + hid), rand(*lead, hid, hid) if o_prime else None,
        rand(*lead, hid) if o_prime else None, rand(*lead, q, hid), rand(*lead, q),
        rand(rows, t_len, 2 * e, scale=0.5),
        rand(rows, e * m) if carried else None,
        torch.rand(rows, n0, dtype=dtype, generator=gen) if carried else None,
        rand(rows, n0, m) if carried else None,
    ]  # fmt: skip
    w_q, b_q = inputs[6], inputs[7]
    assert w_q is not None and b_q is not None
    w_q[..., e * m :, :] *= gate_scale  # the gates' rows
    b_q[..., e * m :] *= gate_scale
    shape = Shape(layout, hid, m, lstm=cell == "lstm", final=carried)
    # dL/d of o'_t, of the gates, and of the state after the last step (h, c, r, s, values)
    last = ((rows, hid), (rows, hid) if cell == "lstm" else None, (rows, e * m),
            (rows, layout.rows), (rows, layout.rows, m))  # fmt: skip
    grads = [
        rand(t_len, rows, hid),
        rand(t_len, rows, 2 * e),
        tuple(rand(*x) if carried and x is not None else None for x in last),
    ]
    return inputs, shape, grads


Compared = list[tuple[str, Tensor | None, Tensor | None]]


def _both_ways(memory: str, cell: str, o_prime: bool, members: int | None, start: int,
               dtype: torch.dtype, seed: int = 0, **sizes: float) -> Compared:  # fmt: skip
    """Every tensor of the forward's ``Run`` and every gradient, compiled and in Python."""
    inputs, shape, (grad_p, grad_gates, grad_last) = _case(memory, cell, o_prime, members,
                                                           start, dtype, seed, **sizes)  # type: ignore[arg-type]  # fmt: skip
    xw, h0, c0, w_rec, w_p, b_p, w_q, b_q, noise, r0, s0, values0 = inputs
    assert xw is not None and h0 is not None and w_rec is not None
    assert w_q is not None and b_q is not None

    def once() -> dict[str, Tensor | None]:
        run = forward(xw, h0, c0, w_rec, w_p, b_p, w_q, b_q, noise, shape, r0, s0, values0)
        grads = backward(run, w_rec, w_p, w_q, grad_p, grad_gates, grad_last, shape)
        return {**{f"run.{k}": v for k, v in run._asdict().items()},
                **{f"grad.{k}": v for k, v in grads.items()}}  # fmt: skip

    compiled = once()
    with python_loops():
        reference = once()
    return [(k, compiled[k], reference[k]) for k in reference]


def _assert_equal(compared: Compared) -> None:
    """Each pair the same bit for bit, or both absent."""
    for name, fast, slow in compared:
        if slow is None:
            assert fast is None, name
        else:
            assert fast is not None and torch.equal(fast, slow), name


def _assert_close(compared: Compared, tolerance: float) -> None:
    """Each pair within ``tolerance``, relative and absolute, or both absent."""
    for name, fast, slow in compared:
        if slow is None:
            assert fast is None, name
        else:
            assert fast is not None, name
            try:
                torch.testing.assert_close(fast, slow, rtol=tolerance, atol=tolerance)
            except AssertionError as error:
                raise AssertionError(f"{name}: {error}") from None


# How far K members' loops may be from the Python ones, relative and absolute: rounding of
# about 1e-7 (float32) or 1e-16 (float64) a step, grown through the random weights' large
# gradients and the memory's kinks (measured at most 1.6e-4 in float32 over 7 steps,
# 1.5e-11 in float64 over 9 and 6.8e-7 over 60).
CLOSE = {torch.float32: 2e-3, torch.float64: 1e-9}


def _assert_agree(compared: Compared, members: int | None, dtype: torch.dtype) -> None:
    """Bit for bit for one controller, to rounding for K members."""
    if members is None:
        _assert_equal(compared)
    else:
        _assert_close(compared, CLOSE[dtype])


needs_compiler = pytest.mark.skipif(
    (shutil.which("c++") is None and shutil.which("g++") is None)
    or os.environ.get("MEMRNN_NATIVE") == "0",
    reason="no C++ compiler, or MEMRNN_NATIVE=0",
)


@needs_compiler
def test_the_loops_are_compiled_where_a_compiler_is() -> None:
    assert loops(torch.zeros(1)) is not None
    with python_loops():
        assert loops(torch.zeros(1)) is None


@needs_compiler
@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
@pytest.mark.parametrize("members", [None, 3])
def test_compiled_loops_equal_the_python_ones(memory: str, cell: str, o_prime: bool,
                                              members: int | None) -> None:  # fmt: skip
    compared = _both_ways(memory, cell, o_prime, members, 0, torch.float32)
    _assert_agree(compared, members, torch.float32)


@needs_compiler
@pytest.mark.parametrize(("memory", "cell", "o_prime"), CASES)
@pytest.mark.parametrize("m", [4, 11])
def test_compiled_loops_of_members_agree_with_the_python_ones_in_float64(
    memory: str, cell: str, o_prime: bool, m: int
) -> None:
    """K members' reads and LSTM cell in float64, for a memory width within one block of
    vector lanes and one of a whole block and a part (11 = 8 + 3)."""
    compared = _both_ways(memory, cell, o_prime, 3, 0, torch.float64, seed=m, t_len=9, m=m)
    _assert_agree(compared, 3, torch.float64)


@needs_compiler
@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
def test_compiled_loops_of_members_agree_over_a_long_sequence(memory: str) -> None:
    """T = 60 in float64: memories of up to 120 rows, read over the rows written so far."""
    compared = _both_ways(memory, "lstm", True, 2, 0, torch.float64, seed=5, t_len=60)
    _assert_close(compared, 1e-5)


@needs_compiler
def test_compiled_loops_of_members_give_the_same_bits_on_one_thread_and_two() -> None:
    """150 rows (3 members of 50), more than one thread's share of the kernels' rows."""
    threads = torch.get_num_threads()

    def on(count: int) -> Compared:
        torch.set_num_threads(count)
        return _both_ways("deque", "lstm", True, 3, 0, torch.float32, seed=2, b=50)

    try:
        one, two = on(1), on(2)
    finally:
        torch.set_num_threads(threads)
    pairs = zip(one, two, strict=True)
    _assert_equal([(name, fast, other) for (name, fast, _), (_, other, _) in pairs])


@needs_compiler
@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
@pytest.mark.parametrize("cell", ["lstm", "rnn"])
def test_compiled_loops_equal_the_python_ones_from_a_carried_state(memory: str,
                                                                    cell: str) -> None:  # fmt: skip
    """A memory carried in (``Layout.start``), the state after the last step returned and
    its gradient given, in float64."""
    for members in (None, 3):
        compared = _both_ways(memory, cell, True, members, 4, torch.float64, seed=1)
        _assert_agree(compared, members, torch.float64)


@needs_compiler
@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("t_len", [20, 40])
def test_compiled_loops_equal_the_python_ones_across_the_small_product_size(
    memory: str, dtype: torch.dtype, t_len: int
) -> None:
    """One controller's reads and their gradients are products of up to T x E x 16
    (width 16): below 400 the compiled loops compute them, above it ATen does."""
    _assert_equal(_both_ways(memory, "lstm", True, None, 0, dtype, seed=t_len, t_len=t_len,
                             m=16))  # fmt: skip


@needs_compiler
@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
def test_compiled_loops_equal_the_python_ones_at_the_kinks_of_a_long_sequence(
    memory: str,
) -> None:
    """T = 60 in float32 with saturated gates: pushes and pops of exactly 1, so that sums
    of strengths land exactly on 1 and reads on the ties of min(s, 1 - A). (K members'
    loops, which round differently, may take the other side of such a tie.)"""
    compared = _both_ways(memory, "lstm", False, None, 0, torch.float32, seed=3, t_len=60,
                          gate_scale=30.0)  # fmt: skip
    _assert_equal(compared)
    strengths = dict((name, slow) for name, _, slow in compared)["run.strengths"]
    assert strengths is not None and ((strengths == 1).sum() > 100)


def test_no_compiled_loops_off_the_cpu_or_when_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert loops(torch.zeros(1, device="meta")) is None
    monkeypatch.setenv("MEMRNN_NATIVE", "0")
    assert loops(torch.zeros(1)) is None


def test_a_failed_build_warns_once_and_the_python_loops_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fails() -> None:
        raise RuntimeError("c++: not found")

    monkeypatch.delenv("MEMRNN_NATIVE", raising=False)
    monkeypatch.setattr(native, "_build", fails)
    monkeypatch.setattr(native, "_built", [])
    with pytest.warns(RuntimeWarning, match="could not be built.*c\\+\\+: not found"):
        assert loops(torch.zeros(1)) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning
        assert loops(torch.zeros(1)) is None
    calls = []
    monkeypatch.setattr(native, "_build", lambda: calls.append(1))
    compared = {name: (a, b) for name, a, b in _both_ways("stack", "lstm", False, None, 0,
                                                          torch.float64)}  # fmt: skip
    fast, slow = compared["grad.w_rec"]  # both from the Python loops, which ran and agree
    assert not calls and fast is not None and slow is not None and torch.equal(fast, slow)


def test_the_cache_directory_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:  # fmt: skip
    monkeypatch.setenv("MEMRNN_CACHE", str(tmp_path))
    assert native.cache_directory() == tmp_path
    monkeypatch.delenv("MEMRNN_CACHE")
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    assert native.cache_directory() == tmp_path / "memrnn"


def _same_bits_both_ways(once: Callable[[], list[Tensor]], names: Sequence[str]) -> None:
    """``once()``'s tensors the same bit for bit with the compiled loops (which run, as
    the first call checks) as with the Python ones."""
    assert loops(torch.zeros(1)) is not None
    compiled = once()
    with python_loops():
        reference = once()
    assert len(compiled) == len(reference) == len(names)
    for name, fast, slow in zip(names, compiled, reference, strict=True):
        assert torch.equal(fast, slow), name


def _close_both_ways(once: Callable[[], list[Tensor]], names: Sequence[str],
                     dtype: torch.dtype) -> None:  # fmt: skip
    """``once()``'s tensors with the compiled loops within rounding of the Python ones."""
    assert loops(torch.zeros(1)) is not None
    compiled = once()
    with python_loops():
        reference = once()
    assert len(compiled) == len(reference) == len(names)
    tolerance = {"rtol": 1e-4, "atol": 1e-5} if dtype == torch.float32 else {}
    for name, fast, slow in zip(names, compiled, reference, strict=True):
        torch.testing.assert_close(fast, slow, **tolerance, msg=name)


@needs_compiler
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "name",
    ["irnn", "gru", "lstm", "alstm", "deep_lstm", "stack_rnn", "stack_lstm_cell", "stack_gru_cell"],
)
def test_grouped_baselines_give_the_same_numbers_with_compiled_loops(
    name: str, dtype: torch.dtype
) -> None:
    """Each grouped recurrent baseline and Stack-RNN, whole: its outputs and every
    parameter's gradient the same with the compiled loops as with the Python ones: bit for
    bit, but for the cells of lstm.cpp and gru.cpp (the LSTM, A-LSTM, Deep LSTM and GRU),
    which agree to rounding."""
    from memrnn.models import IRNN, AttentionLSTM, DeepLSTM, GRUNetwork, OneHotLSTM
    from memrnn.models.grouped import Grouped
    from memrnn.models.stack_rnn import SuperpositionStackRNN
    from tests.models.grouped_checks import inputs, loss, members

    builds = {
        "irnn": lambda: IRNN(5, 6, 8, readout=7),
        "gru": lambda: GRUNetwork(5, 6, 8),
        "lstm": lambda: OneHotLSTM(5, 6, 8, readout=7),
        "alstm": lambda: AttentionLSTM(5, 6, 8, readout=7),
        "deep_lstm": lambda: DeepLSTM(5, 6, hidden_size=8, embedding=4, layers=2),
        # a stack that the 9 steps fill (depth 5), and one that grows by 8 rows (width 8)
        "stack_rnn": lambda: SuperpositionStackRNN(5, 6, 8, 3, 5),
        "stack_lstm_cell": lambda: SuperpositionStackRNN(5, 6, 8, 8, 12, cell="lstm"),
        "stack_gru_cell": lambda: SuperpositionStackRNN(5, 6, 8, 3, 5, cell="gru"),
    }
    group = Grouped(members(builds[name], dtype, scale=1.5, noise=0.1))
    x = inputs(True, 4, 9, dtype)

    def once() -> list[Tensor]:
        group.zero_grad()
        out = group(x)
        loss(out).backward()
        return [out.detach(), *(p.grad.clone() for p in group.parameters() if p.grad is not None)]

    names = ["outputs", *(f"d {name}" for name, _ in group.named_parameters())]
    if name in ("lstm", "alstm", "deep_lstm", "gru"):
        _close_both_ways(once, names, dtype)
    else:
        _same_bits_both_ways(once, names)


@needs_compiler
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_small_bmm_is_atens_bmm_bit_for_bit(dtype: torch.dtype) -> None:
    """The fast weights' products (a row times a matrix, either orientation) and others,
    on both sides of ATen's 400 multiply-adds: the same bits as ``torch.bmm`` where ATen
    runs its small-product loop, None where it does not."""
    compiled = loops(torch.zeros(()))
    assert compiled is not None
    gen = torch.Generator().manual_seed(0)
    small = 0
    for rows, inner, cols in [(1, 32, 12), (1, 12, 32), (1, 32, 13), (3, 5, 7), (2, 20, 10),
                              (4, 1, 9), (1, 8, 50)]:  # fmt: skip
        x = torch.randn(6, rows, inner, dtype=dtype, generator=gen)
        y = torch.randn(6, inner, cols, dtype=dtype, generator=gen)
        for right in (y, y.mT.contiguous().mT):  # contiguous, and transposed as H^T is
            got = compiled.small_bmm(x, right)
            if rows * inner * cols >= 400:
                assert got is None
            else:
                small += 1
                assert torch.equal(got, torch.bmm(x, right)), (rows, inner, cols)
    assert small == 8
    with pytest.raises(RuntimeError, match=r"small_bmm: x \(B, I, C\)"):
        compiled.small_bmm(torch.zeros(2, 1, 3), torch.zeros(2, 4, 5))
    with pytest.raises(RuntimeError, match="on the CPU"):
        compiled.small_bmm(torch.zeros(2, 1, 3, device="meta"), torch.zeros(2, 3, 5))


@needs_compiler
def test_fast_weights_train_through_small_bmm_with_the_python_loops_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Fast Weights RNN's fast term (Ba et al. 2016, eq. 3) takes ``small_bmm`` in its
    forward and its hand-written backward; its outputs and every gradient are the same bits
    as with ATen's ``bmm`` (the Python loops), over steps on both sides of the 400."""
    from memrnn.models import fast_weights

    used = [0]
    compiled = loops(torch.zeros(()))

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(compiled, name)

        def small_bmm(self, x: Tensor, y: Tensor) -> Tensor | None:
            used[0] += 1
            return compiled.small_bmm(x, y)  # type: ignore[union-attr,no-any-return]

    runs = []
    for reference in (True, False):
        torch.manual_seed(0)
        model = fast_weights.FastWeightsRNN(11, 5, 32, inner_steps=2)
        tokens = torch.randint(0, 11, (6, 16), generator=torch.Generator().manual_seed(1))
        if reference:
            with python_loops():
                out = model.features(tokens)
                out.sin().sum().backward()
        else:
            monkeypatch.setattr(fast_weights, "loops", lambda like: Counting())
            out = model.features(tokens)
            out.sin().sum().backward()
        grads = {n: p.grad for n, p in model.named_parameters() if p.grad is not None}
        runs.append((out.detach(), grads))
    assert used[0] > 0, "the fast term did not take small_bmm"
    (out_a, grads_a), (out_b, grads_b) = runs
    assert torch.equal(out_a, out_b)
    assert grads_a.keys() == grads_b.keys() and len(grads_a) >= 4
    for name in grads_a:
        assert torch.equal(grads_a[name], grads_b[name]), name
