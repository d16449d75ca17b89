"""K models trained as one (memrnn.models.grouped) against the K models one by one."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
import torch
from torch import nn

from memrnn.models import MemoryAugmentedLSTM, MemoryRNN, OneHotLSTM
from memrnn.models.grouped import Grouped, groupable
from tests.models.grouped_checks import (
    K,
    check_against_members,
    dropping_deep_lstm,
    inputs,
    members,
)

RNN_CASES = list(itertools.product(("stack", "queue", "deque"), ("rnn", "lstm"), (True, False)))


def _rnn(memory: str, cell: str, o_prime: bool) -> Callable[[], nn.Module]:
    return lambda: MemoryRNN(5, 7, 6, 4, memory=memory, cell=cell, o_prime_layer=o_prime,  # type: ignore[arg-type]
                             pop_bias=-0.5)  # fmt: skip


def _members(build: Callable[[], nn.Module], dtype: torch.dtype = torch.float32) -> list[nn.Module]:
    return members(build, dtype, scale=2.0)  # gates spread over (0, 1), pops reach deep


def _transducer(memory: str) -> Callable[[], nn.Module]:
    return lambda: MemoryAugmentedLSTM(5, 6, memory=memory, hidden_size=8, embedding=4,  # type: ignore[arg-type]
                                       memory_width=3)  # fmt: skip


# (builder, token ids or vectors): MemoryRNN on vectors (and once on ids, read as one-hot
# vectors), MemoryAugmentedLSTM on both.
CASES = (
    [(_rnn(*c), False) for c in RNN_CASES]
    + [(_rnn("deque", "lstm", True), True)]
    + [
        (_transducer(memory), tokens)
        for memory in ("stack", "queue", "deque")
        for tokens in (True, False)
    ]
)
IDS = (
    [f"rnn-{m}-{c}-{'oprime' if o else 'h'}" for m, c, o in RNN_CASES]
    + ["rnn-deque-ids"]
    + [
        f"transducer-{m}-{'ids' if t else 'vectors'}"
        for m in ("stack", "queue", "deque")
        for t in (True, False)
    ]
)


@pytest.mark.parametrize(
    ("dtype", "atol"), [(torch.float32, 1e-5), (torch.float64, 1e-12)], ids=["f32", "f64"]
)
@pytest.mark.parametrize(("build", "tokens"), CASES, ids=IDS)
def test_forward_and_gradients_match_the_members(
    build: Callable[[], nn.Module], tokens: bool, dtype: torch.dtype, atol: float
) -> None:
    check_against_members(_members(build, dtype), inputs(tokens, 4, 9, dtype), atol)


@pytest.mark.parametrize(
    ("build", "tokens"), [CASES[0], CASES[-2], CASES[-1]], ids=IDS[:1] + IDS[-2:]
)
def test_one_step_and_one_row(build: Callable[[], nn.Module], tokens: bool) -> None:
    members = _members(build)
    grouped = Grouped(members)
    x = inputs(tokens, 1, 1, torch.float32)
    logits = grouped(x)
    assert logits.shape[:3] == (K, 1, 1)
    want = torch.stack([m(x[k]) for k, m in enumerate(members)])
    torch.testing.assert_close(logits, want, rtol=0, atol=1e-5)
    logits.sum().backward()
    assert all(p.grad is not None for m in members for p in m.parameters())


def test_the_members_keep_their_own_leaves() -> None:
    """The group has no parameters or submodules of its own: moving or saving it leaves the
    members alone, and the backward hands each member's leaves their gradients."""
    members = _members(_rnn("deque", "lstm", True))
    grouped = Grouped(members)
    assert grouped.names == tuple(name for name, _ in members[0].named_parameters())
    assert list(grouped.parameters()) == [] and list(grouped.children()) == []
    assert grouped.state_dict() == {}
    grouped(inputs(False, 2, 5, torch.float32)).sum().backward()
    assert all(p.grad is not None for m in members for p in m.parameters())


def test_which_runs_the_chosen_members_on_their_inputs() -> None:
    members = _members(_transducer("stack"))
    grouped = Grouped(members)
    x = inputs(True, 2, 5, torch.float32)[:2]
    got = grouped(x, which=[2, 0])
    want = torch.stack([members[2](x[0]), members[0](x[1])])
    torch.testing.assert_close(got, want, rtol=0, atol=1e-5)
    for which in ([], [0, 0], [3], [-1]):
        with pytest.raises(ValueError, match="which: expected distinct member indices"):
            grouped(x, which=which)


def test_models_vmap_cannot_run_are_run_member_after_member() -> None:
    """nn.LSTM has no batching rule: such members still train as one group, each on its
    own slice, and give what they give alone."""
    models = members(lambda: OneHotLSTM(5, 4, 6))
    assert groupable(models[0]) and not Grouped(models).vmapped
    assert Grouped(_members(_transducer("queue"))).vmapped
    check_against_members(models, inputs(True, 2, 6, torch.float32), atol=1e-6)


def test_groupable() -> None:
    assert groupable(_rnn("stack", "rnn", True)())
    assert groupable(_transducer("deque")())
    assert not groupable(MemoryRNN(5, 7, 6, 4, gate_noise=0.5))
    assert not groupable(MemoryAugmentedLSTM(5, 6, hidden_size=8, embedding=4, gate_noise=0.5))
    assert not groupable(dropping_deep_lstm())

    class Noisy(MemoryAugmentedLSTM):  # a subclass is judged by its own settings
        pass

    assert groupable(Noisy(5, 4, hidden_size=6, embedding=3, memory_width=2))
    assert not groupable(Noisy(5, 4, hidden_size=6, embedding=3, memory_width=2, gate_noise=1.0))


def test_members_that_cannot_be_grouped() -> None:
    with pytest.raises(ValueError, match="members: expected at least one"):
        Grouped([])
    with pytest.raises(ValueError, match=r"members\[1\]: a DeepLSTM cannot be grouped"):
        Grouped([_rnn("stack", "rnn", True)(), dropping_deep_lstm()])
    with pytest.raises(ValueError, match=r"members\[0\]: a MemoryRNN cannot be grouped"):
        Grouped([MemoryRNN(5, 7, 6, 4, gate_noise=0.1)])
    with pytest.raises(ValueError, match=r"members\[1\]: a MemoryAugmentedLSTM, but members\[0\]"):
        Grouped([_rnn("stack", "lstm", False)(), _transducer("stack")()])
    with pytest.raises(ValueError, match=r"members\[1\]: its .*memory.* is 'queue'"):
        Grouped([_rnn("stack", "rnn", True)(), _rnn("queue", "rnn", True)()])
    with pytest.raises(
        ValueError, match=r"members\[1\]: its cell.input_size is 8, members\[0\]'s 9"
    ):
        Grouped([MemoryRNN(5, 7, 6, 4), MemoryRNN(5, 7, 6, 3)])
    with pytest.raises(ValueError, match=r"members\[1\]: parameter h0 is \(6,\) torch.float64"):
        Grouped([MemoryRNN(5, 7, 6, 4), MemoryRNN(5, 7, 6, 4).double()])
    with pytest.raises(ValueError, match=r"members\[1\]: its .* is 7, members\[0\]'s 6"):
        Grouped([_transducer("stack")(), MemoryAugmentedLSTM(5, 7, hidden_size=8, embedding=4,
                                                             memory_width=3)])  # fmt: skip


def test_badinputs() -> None:
    rnn = Grouped(_members(_rnn("stack", "lstm", True)))
    transducer = Grouped(_members(_transducer("queue")))
    with pytest.raises(
        ValueError, match=r"inputs: expected token ids \(3, B, T\) .* got \(2, 4, 5\)"
    ):
        transducer(torch.zeros(2, 4, 5, dtype=torch.long))
    with pytest.raises(ValueError, match=r"inputs: .* got \(3, 4, 0\)"):
        transducer(torch.zeros(3, 4, 0, dtype=torch.long))
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 4 .* found 5"):
        transducer(torch.full((3, 2, 4), 5))
    with pytest.raises(ValueError, match=r"inputs: expected vectors \(3, B, T, 5\)"):
        rnn(torch.zeros(3, 2, 4, 6))
    with pytest.raises(ValueError, match=r"inputs: torch\.float64"):
        rnn(torch.zeros(3, 2, 4, 5, dtype=torch.float64))
    with pytest.raises(ValueError, match="inputs: expected"):
        rnn([[0.0]])  # type: ignore[arg-type]


def test_training_mode_changes_nothing() -> None:
    grouped = Grouped(_members(_rnn("queue", "lstm", False)))
    x = inputs(False, 2, 6, torch.float32)
    train = grouped.train()(x)
    assert torch.equal(train, grouped.eval()(x))
