"""The transduction models: teacher forcing equals step-by-step decoding, traces, the
paper's parameter counts, and the pop bias."""

from __future__ import annotations

import re

import pytest
import torch
from torch import Tensor

from memrnn.models.controller import MemoryRNN
from memrnn.models.transducer import (
    DeepLSTM,
    MemoryAugmentedLSTM,
    core_parameters,
    greedy_decode,
)


def _models() -> list[MemoryAugmentedLSTM | DeepLSTM]:
    torch.manual_seed(0)
    kw = {"hidden_size": 12, "embedding": 6}
    return [
        MemoryAugmentedLSTM(9, 7, memory="stack", memory_width=5, **kw),
        MemoryAugmentedLSTM(9, 7, memory="queue", memory_width=5, **kw),
        MemoryAugmentedLSTM(9, 7, memory="deque", memory_width=5, **kw),
        DeepLSTM(9, 7, layers=1, **kw),
        DeepLSTM(9, 7, layers=3, **kw),
    ]


@pytest.mark.parametrize("index", range(5))
def test_steps_equal_the_teacher_forced_pass(index: int) -> None:
    model = _models()[index].double()
    tokens = torch.randint(0, 9, (4, 10), generator=torch.Generator().manual_seed(1))
    whole = model(tokens)
    assert whole.shape == (4, 10, 7)
    carry = model.start(4, 10)
    steps = []
    for t in range(10):
        logits, carry = model.step(carry, tokens[:, t])  # type: ignore[arg-type]
        steps.append(logits)
    torch.testing.assert_close(torch.stack(steps, dim=1), whole)
    whole.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.parametrize("memory", ["stack", "queue", "deque"])
def test_traces(memory: str) -> None:
    torch.manual_seed(2)
    model = MemoryAugmentedLSTM(9, 7, memory=memory, hidden_size=8, embedding=4, memory_width=3)  # type: ignore[arg-type]
    tokens = torch.randint(0, 9, (2, 6))
    out = model.trace(tokens, strengths=True)
    assert out.strengths is not None
    assert torch.equal(out.outputs, model(tokens))
    assert out.push.shape == out.pop.shape == (2, 6)
    width = 12 if memory == "deque" else 6
    assert out.strengths.shape == (2, 6, width)
    if memory != "deque":  # nothing is stored beyond what was pushed so far
        later = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
        assert (out.strengths[:, later] == 0).all()
    assert (out.push_bot is not None) == (memory == "deque")
    assert model.trace(tokens).strengths is None


def test_pop_bias_starts_at_minus_one() -> None:
    model = MemoryAugmentedLSTM(9, 7, memory="deque", hidden_size=8, embedding=4, memory_width=3)
    assert model.core.top.pop.bias.item() == -1.0
    assert model.core.bot is not None and model.core.bot.pop.bias.item() == -1.0


# Appendix D of the paper (vocabulary 128, embeddings 64, memory width 256)
PAPER_COUNTS = {
    ("lstm1", 256): 3.3e5, ("lstm1", 512): 1.2e6,
    ("stack", 256): 6.7e5, ("stack", 512): 1.9e6,
    ("queue", 256): 6.7e5, ("queue", 512): 1.9e6,
    ("deque", 256): 1.0e6, ("deque", 512): 2.5e6,
}  # fmt: skip


@pytest.mark.parametrize(("kind", "hidden"), sorted(PAPER_COUNTS))
def test_parameter_counts_match_appendix_d(kind: str, hidden: int) -> None:
    if kind == "lstm1":
        model: MemoryAugmentedLSTM | DeepLSTM = DeepLSTM(131, 129, hidden_size=hidden)
    else:
        model = MemoryAugmentedLSTM(131, 129, memory=kind, hidden_size=hidden)  # type: ignore[arg-type]
    assert core_parameters(model) == pytest.approx(PAPER_COUNTS[kind, hidden], rel=0.05)
    assert core_parameters(model) < sum(p.numel() for p in model.parameters())


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="output_hidden: without the o' layer"):
        MemoryRNN(5, 3, 7, 4, output_hidden=11, o_prime_layer=False)
    with pytest.raises(ValueError, match="layers: expected an int >= 1, got 0"):
        DeepLSTM(9, 7, layers=0)
    with pytest.raises(ValueError, match="memory: expected one of"):
        MemoryAugmentedLSTM(9, 7, memory="heap")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 8"):
        MemoryAugmentedLSTM(9, 7, hidden_size=4, embedding=2, memory_width=2)(torch.tensor([[9]]))


@pytest.mark.parametrize("index", [0, 2, 4])
def test_greedy_decode_equals_rerunning_the_whole_sequence(index: int) -> None:
    model = _models()[index]
    g = torch.Generator().manual_seed(3)
    lengths = torch.tensor([2, 5, 3])
    prefixes = torch.randint(0, 9, (3, 5), generator=g)

    def feed(ids: Tensor) -> Tensor:
        return (ids + 2) % 9  # any map from output ids to input ids

    got = greedy_decode(model, prefixes, lengths, 4, feed)
    for b in range(3):
        seq = prefixes[b, : lengths[b]].tolist()
        want = []
        for _ in range(4):  # the literal way: rerun everything, take the last argmax
            with torch.no_grad():
                last = model(torch.tensor([seq]))[0, -1].argmax().item()
            want.append(last)
            seq.append(int(feed(torch.tensor(last))))
        assert got[b].tolist() == want


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"input_vocab": 0}, "input_vocab: expected an int >= 1, got 0"),
        ({"output_vocab": 0}, "output_vocab: expected an int >= 1, got 0"),
        ({"input_vocab": True}, "input_vocab: expected an int >= 1, got True"),
        ({"embedding": 0}, "embedding: expected an int >= 1, got 0"),
        ({"memory_width": 1.5}, "memory_width: expected an int >= 1, got 1.5"),
        ({"pop_bias": float("nan")}, "pop_bias: expected a finite number, got nan"),
        ({"push_bias": float("inf")}, "push_bias: expected a finite number, got inf"),
        ({"bottom_push_bias": float("nan")}, "bottom_push_bias: expected a finite number"),
    ],
)
def test_memory_augmented_lstm_refuses_bad_sizes_and_biases(
    kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"input_vocab": 9, "output_vocab": 7, "memory": "deque"}
    with pytest.raises(ValueError, match=re.escape(message)):
        MemoryAugmentedLSTM(**(args | kwargs))  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [0, 2, 3])
@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (torch.tensor([9, 0, 1]), "tokens: ids must lie in 0 .. 8 (a vocabulary of 9), found 9"),
        (torch.tensor([0, -1, 1]), "found -1"),
        (torch.tensor([[0, 1, 2]]), "tokens: expected a (B,) tensor of ids, got (1, 3)"),
        (torch.zeros(3, 8), "tokens: expected shape (B, 9), got (3, 8)"),
    ],
)
def test_a_step_names_bad_tokens(index: int, tokens: Tensor, message: str) -> None:
    model = _models()[index]
    with pytest.raises(ValueError, match=re.escape(message)):
        model.step(model.start(3, 4), tokens)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prefixes", "lengths", "steps", "message"),
    [
        (torch.tensor([[0, 9]]), torch.tensor([2]), 3, "prefixes: ids must lie in 0 .. 8"),
        (torch.tensor([[0, 1]]), torch.tensor([3]), 3, "prefix_lengths: expected ints in 1 .. 2"),
        (torch.tensor([[0, 1]]), torch.tensor([0]), 3, "found 0"),
        (torch.tensor([[0, 1]]), torch.tensor([1, 2]), 3, "prefix_lengths: expected a (1,)"),
        (torch.tensor([[0, 1]]), [2], 3, "prefix_lengths: expected a (1,) integer tensor"),
        (torch.tensor([[0, 1]]), torch.tensor([2]), 0, "steps: expected an int >= 1, got 0"),
    ],
)
def test_greedy_decode_checks_its_prefixes_once(
    prefixes: Tensor, lengths: object, steps: int, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        greedy_decode(_models()[0], prefixes, lengths, steps, lambda ids: ids)  # type: ignore[arg-type]
