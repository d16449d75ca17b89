"""The compiled time loops (``loops.cpp``) against the Python ones: the same forward
buffers and the same gradients, bit for bit, for every memory, cell and option of one
controller and for K controllers at once (a group's batching rule); and what happens
where they cannot be built."""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest
import torch
from torch import Tensor

from memrnn.models.controller import native
from memrnn.models.controller.fused import backward, forward
from memrnn.models.controller.native import loops, python_loops
from tests.models.controller.cases import CASES, _case

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
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("members", [None, 3])
def test_compiled_loops_equal_the_python_ones(
    memory: str, cell: str, o_prime: bool, dtype: torch.dtype, members: int | None
) -> None:
    _assert_equal(_both_ways(memory, cell, o_prime, members, 0, dtype))


@needs_compiler
@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
@pytest.mark.parametrize("cell", ["lstm", "rnn"])
def test_compiled_loops_equal_the_python_ones_from_a_carried_state(memory: str,
                                                                    cell: str) -> None:  # fmt: skip
    """A memory carried in (``Layout.start``), the state after the last step returned and
    its gradient given, in float64."""
    for members in (None, 3):
        _assert_equal(_both_ways(memory, cell, True, members, 4, torch.float64, seed=1))


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
    of strengths land exactly on 1 and reads on the ties of min(s, 1 - A)."""
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
