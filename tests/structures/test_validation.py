"""Bad input raises a clear error that names the offending argument."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import torch

from memrnn.structures import NeuralDeque, NeuralQueue, NeuralStack

B, T, M = 3, 4, 5
F32 = torch.float32


def _ok_step() -> dict[str, torch.Tensor]:
    return {"value": torch.zeros(B, M), "push": torch.full((B,), 0.5), "pop": torch.full((B,), 0.5)}


def _ok_run() -> dict[str, torch.Tensor]:
    return {
        "values": torch.zeros(B, T, M),
        "push": torch.full((B, T), 0.5),
        "pop": torch.full((B, T), 0.5),
    }


BAD_STEP = [  # (argument, replacement, message fragment)
    ("value", torch.zeros(B + 1, M), "value: expected shape (B, m) = (3, 5), got (4, 5)"),
    ("value", torch.zeros(B, M + 1), "value: expected shape (B, m) = (3, 5), got (3, 6)"),
    ("push", torch.full((B + 1,), 0.5), "push: expected shape (B,) = (3,), got (4,)"),
    ("pop", torch.full((B, 1), 0.5), "pop: expected shape (B,) = (3,), got (3, 1)"),
    (
        "push",
        torch.tensor([0.5, 1.5, 0.5]),
        "push: must lie in [0, 1], found values from 0.5 to 1.5",
    ),
    ("pop", torch.tensor([0.5, -0.1, 0.5]), "pop: must lie in [0, 1]"),
    ("pop", torch.tensor([0.5, float("nan"), 0.5]), "pop: contains NaN"),
    ("value", torch.zeros(B, M, dtype=torch.float64), "value: dtype torch.float64 does not match"),
    ("push", torch.full((B,), 0.5, dtype=torch.float64), "push: dtype torch.float64"),
    ("value", torch.zeros(B, M, device="meta"), "value: on device meta but the memory is on cpu"),
    ("pop", [0.5, 0.5, 0.5], "pop: expected a torch.Tensor, got list"),
]


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
@pytest.mark.parametrize(("name", "bad", "message"), BAD_STEP)
def test_step_rejects(memory: NeuralStack, name: str, bad: object, message: str) -> None:
    args = _ok_step()
    args[name] = bad  # type: ignore[assignment]
    error = TypeError if isinstance(bad, list) else ValueError
    with pytest.raises(error, match=re.escape(message)):
        memory.step(memory.initial_state(B, M), **args)


BAD_RUN = [
    ("values", torch.zeros(B, T), "values: expected shape (B, T, m), got (3, 4)"),
    (
        "values",
        torch.zeros(B, T, M, dtype=torch.int64),
        "dtype: a memory needs a floating-point dtype",
    ),
    ("push", torch.full((B + 1, T), 0.5), "push: expected shape (B, T) = (3, 4), got (4, 4)"),
    ("pop", torch.full((B, T + 1), 0.5), "pop: expected shape (B, T) = (3, 4), got (3, 5)"),
    ("push", torch.full((B, T), 2.0), "push: must lie in [0, 1]"),
    ("pop", torch.full((B, T), float("nan")), "pop: contains NaN"),
    (
        "pop",
        torch.full((B, T), 0.5, dtype=torch.float64),
        "pop: dtype torch.float64 does not match",
    ),
]


@pytest.mark.parametrize("memory", [NeuralStack(), NeuralQueue()], ids=repr)
@pytest.mark.parametrize(("name", "bad", "message"), BAD_RUN)
def test_run_rejects(memory: NeuralStack, name: str, bad: torch.Tensor, message: str) -> None:
    args = _ok_run()
    args[name] = bad
    with pytest.raises(ValueError, match=re.escape(message)):
        memory.run(**args)


def _deque_step_args() -> dict[str, torch.Tensor]:
    half = torch.full((B,), 0.5)
    return {
        "value_top": torch.zeros(B, M),
        "value_bot": torch.zeros(B, M),
        "push_top": half,
        "push_bot": half,
        "pop_top": half,
        "pop_bot": half,
    }


def _deque_run_args() -> dict[str, torch.Tensor]:
    half = torch.full((B, T), 0.5)
    return {
        "values_top": torch.zeros(B, T, M),
        "values_bot": torch.zeros(B, T, M),
        "push_top": half,
        "push_bot": half,
        "pop_top": half,
        "pop_bot": half,
    }


BAD_DEQUE: list[tuple[str, str, Callable[[], torch.Tensor], str]] = [
    ("step", "value_bot", lambda: torch.zeros(B, M + 2), "value_bot: expected shape (B, m)"),
    ("step", "push_bot", lambda: torch.full((B,), 1.5), "push_bot: must lie in [0, 1]"),
    ("step", "pop_top", lambda: torch.full((B,), float("nan")), "pop_top: contains NaN"),
    ("step", "pop_bot", lambda: torch.full((B + 1,), 0.5), "pop_bot: expected shape (B,) = (3,)"),
    ("run", "values_bot", lambda: torch.zeros(B, T + 1, M), "values_bot: expected shape (B, T, m)"),
    ("run", "push_top", lambda: torch.full((B, T), -1.0), "push_top: must lie in [0, 1]"),
    ("run", "pop_bot", lambda: torch.full((B, T), 0.5, dtype=torch.float64), "pop_bot: dtype"),
]


@pytest.mark.parametrize(("method", "name", "bad", "message"), BAD_DEQUE)
def test_deque_rejects(
    method: str, name: str, bad: Callable[[], torch.Tensor], message: str
) -> None:
    deque = NeuralDeque()
    if method == "step":
        args = _deque_step_args()
        args[name] = bad()
        with pytest.raises(ValueError, match=re.escape(message)):
            deque.step(deque.initial_state(B, M), **args)
    else:
        args = _deque_run_args()
        args[name] = bad()
        with pytest.raises(ValueError, match=re.escape(message)):
            deque.run(**args)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0, "width": 4}, "batch_size: expected an int >= 1, got 0"),
        ({"batch_size": 2, "width": 2.5}, "width: expected an int >= 1, got 2.5"),
        (
            {"batch_size": 2, "width": 4, "dtype": torch.int32},
            "dtype: a memory needs a floating-point",
        ),
        ({"batch_size": 2, "width": 4, "capacity": -1}, "capacity: expected an int >= 1"),
    ],
)
def test_initial_state_rejects(kwargs: dict[str, object], message: str) -> None:
    for memory in (NeuralStack(), NeuralQueue(), NeuralDeque()):
        with pytest.raises(ValueError, match=re.escape(message)):
            memory.initial_state(**kwargs)  # type: ignore[arg-type]


def test_state_must_be_a_memory_state() -> None:
    with pytest.raises(TypeError, match="state: expected a MemoryState"):
        NeuralStack().step(torch.zeros(B, M), **_ok_step())  # type: ignore[arg-type]


def test_validation_can_be_switched_off() -> None:
    """Range checks cost a device sync; a controller with sigmoid gates may skip them."""
    args = _ok_step()
    args["push"] = torch.full((B,), 1.5)
    stack = NeuralStack(validate=False)
    read, _ = stack.step(stack.initial_state(B, M), **args)
    assert read.shape == (B, M)


@pytest.mark.parametrize("memory", [NeuralStack, NeuralQueue, NeuralDeque])
@pytest.mark.parametrize("bad", ["no", 0, None])
def test_the_validate_switch_takes_a_bool_only(memory: type[NeuralStack], bad: object) -> None:
    with pytest.raises(ValueError, match=f"validate: expected True or False, got {bad!r}"):
        memory(validate=bad)  # type: ignore[arg-type]


def test_a_range_check_under_compile_asserts_without_reading_back() -> None:
    """Under torch.compile the range check is part of the graph (no graph break): a gate
    outside [0, 1] raises when the graph runs."""
    from memrnn.structures.checks import check_unit_interval

    def checked(x: torch.Tensor) -> torch.Tensor:
        check_unit_interval("pop", x)
        return x * 2

    torch._dynamo.reset()
    compiled = torch.compile(checked, backend="aot_eager", fullgraph=True)
    assert torch.equal(compiled(torch.tensor([0.0, 0.5, 1.0])), torch.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"pop: must lie in \[0, 1\]"):
        compiled(torch.tensor([0.5, 1.5, 0.0]))
