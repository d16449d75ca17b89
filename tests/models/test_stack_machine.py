"""The deep stack machine's network: the prefix-state stack, the batched forward pass."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from torch import nn

from memrnn.models.stack_machine import DeepStackMachineNetwork, GRUStack


def _encode(cell: nn.GRUCell, symbols: list[torch.Tensor]) -> torch.Tensor:
    """g of a whole stack, read bottom to top from the zero state."""
    g = torch.zeros(1, cell.hidden_size)
    for symbol in symbols:
        g = cell(symbol, g)
    return g


def test_prefix_states_equal_reencoding() -> None:
    torch.manual_seed(0)
    cell = nn.GRUCell(3, 12)
    rng = np.random.default_rng(1)
    stack = GRUStack(cell)
    symbols: list[torch.Tensor] = []
    with torch.no_grad():
        for _ in range(200):
            if symbols and rng.random() < 0.4:
                count = int(rng.integers(1, len(symbols) + 1))
                stack.pop(count)
                del symbols[-count:]
            else:
                symbols.append(torch.eye(3)[rng.integers(3)][None])
                stack.push(symbols[-1])
            assert len(stack) == len(symbols)
            torch.testing.assert_close(stack.state, _encode(cell, symbols), rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="pop: 99 symbols asked for"):
        stack.pop(99)


def _network(seed: int, **options: object) -> DeepStackMachineNetwork:
    torch.manual_seed(seed)
    codes = torch.eye(5)[3:]  # two nonterminals, coded on the last two units
    return DeepStackMachineNetwork(5, 2, 8, nonterminals=codes, max_pop=2, **options)  # type: ignore[arg-type]


def test_rows_of_a_batch_run_as_each_row_alone() -> None:
    """Lockstep batching changes nothing: with ``lengths``, each row's outputs are those
    of the row alone, and zero past its length."""
    net = _network(0)
    with torch.no_grad():  # heads that pop, push and shift, so that the stack is used
        net.c_shift.bias.copy_(torch.tensor([0.0, 3.0]))
        net.c_push.bias.copy_(torch.tensor([0.0, 0.0, 0.5]))
    tokens = torch.randint(0, 3, (4, 9), generator=torch.Generator().manual_seed(1))
    lengths = [9, 4, 7, 1]
    with torch.no_grad():
        batch = net(tokens, lengths=lengths)
        for i, n in enumerate(lengths):
            torch.testing.assert_close(batch[i, :n], net(tokens[i : i + 1, :n])[0])
            assert not batch[i, n:].any()


def test_tokens_are_one_hot_vectors_and_gradients_reach_cell_and_output_head() -> None:
    net = _network(1)
    tokens = torch.tensor([[0, 1, 2, 4], [3, 3, 1, 0]])
    out = net(tokens)
    assert out.shape == (2, 4, 2)
    torch.testing.assert_close(out, net(nn.functional.one_hot(tokens, 5).float()))
    out.square().sum().backward()
    for param in (net.cell.weight_ih, net.c_out.weight):
        assert param.grad is not None and param.grad.abs().sum() > 0


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match=r"nonterminals: expected shape \(K, 5\)"):
        DeepStackMachineNetwork(5, 2, nonterminals=torch.eye(4))
    with pytest.raises(ValueError, match="max_pop: expected an int >= 0, got -1"):
        DeepStackMachineNetwork(5, 2, max_pop=-1)
    assert DeepStackMachineNetwork(5, 2, max_pop=0).c_pop.out_features == 1
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 5\)"):
        _network(0)(torch.zeros(1, 3, 4))
    assert np.array_equal(_network(0).nonterminals.numpy(), np.eye(5)[3:])


@pytest.mark.parametrize(
    ("nonterminals", "message"),
    [
        ([[0.0] * 5], "nonterminals: expected shape (K, 5), got list"),
        (torch.full((1, 5), float("nan")), "nonterminals: contains NaN or inf"),
        (torch.ones(1, 5, dtype=torch.long), "nonterminals: expected floats, got dtype torch.int"),
    ],
)
def test_bad_nonterminals_are_named(nonterminals: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        DeepStackMachineNetwork(5, 2, nonterminals=nonterminals)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"lengths": [3, 5]}, "lengths: expected 2 ints in 0 .. 3 (one per row), got [3, 5]"),
        ({"lengths": [3]}, "lengths: expected 2 ints in 0 .. 3"),
        ({"lengths": [3, 1.0]}, "lengths: expected 2 ints in 0 .. 3"),
        ({"max_actions": 0}, "max_actions: expected an int >= 1, got 0"),
    ],
)
def test_bad_forward_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _network(0)(torch.zeros(2, 3, 5), **options)  # type: ignore[arg-type]
