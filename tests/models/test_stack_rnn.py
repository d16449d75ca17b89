"""The superposition Stack-RNN (Joulin and Mikolov 2015; Suzgun et al. 2019)."""

from __future__ import annotations

import pytest
import torch

from memrnn.models.stack_rnn import SuperpositionStackRNN


@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
def test_shapes_and_gradients(cell: str) -> None:
    torch.manual_seed(0)
    model = SuperpositionStackRNN(3, 2, 8, 4, 10, cell=cell)  # type: ignore[arg-type]
    inputs = torch.randn(5, 7, 3)
    out = model.trace(inputs)
    assert out.outputs.shape == (5, 7, 2) and out.push.shape == out.pop.shape == (5, 7)
    assert out.push_bot is None and out.pop_bot is None and out.strengths is None
    torch.testing.assert_close(out.push + out.pop, torch.ones(5, 7))
    assert torch.equal(model(inputs), out.outputs)
    out.outputs.sum().backward()
    for name, param in model.named_parameters():
        assert param.grad is not None and param.grad.abs().sum() > 0, name


def test_the_stack_feeds_the_state() -> None:
    """Zeroing W_sh cuts the stack out; then outputs depend on the inputs alone."""
    torch.manual_seed(1)
    model = SuperpositionStackRNN(2, 2, 6, 3, 5)
    inputs = torch.randn(1, 6, 2)
    with_stack = model(inputs)
    with torch.no_grad():
        model.W_sh.weight.zero_()
    without = model(inputs)
    torch.testing.assert_close(with_stack[:, 0], without[:, 0])  # empty stack at t = 0
    assert not torch.allclose(with_stack[:, 1:], without[:, 1:])


def test_learns_to_remember_the_first_symbol() -> None:
    """A push at t=0 and no pops would carry the first symbol; the model finds a way."""
    torch.manual_seed(0)
    model = SuperpositionStackRNN(2, 2, 8, 2, 12)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    gen = torch.Generator().manual_seed(0)
    for _ in range(80):
        first = torch.randint(0, 2, (32,), generator=gen)
        inputs = torch.zeros(32, 6, 2)
        inputs[torch.arange(32), 0, first] = 1.0
        logits = model(inputs)[:, -1]
        loss = torch.nn.functional.cross_entropy(logits, first)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert (logits.argmax(-1) == first).float().mean() == 1.0


def test_bad_input() -> None:
    model = SuperpositionStackRNN(3, 2, 4, 2, 3)
    with pytest.raises(ValueError, match=r"inputs: expected shape \(B, T, 3\), got \(2, 5\)"):
        model(torch.zeros(2, 5))
    with pytest.raises(ValueError, match=r"inputs: torch\.float64 on cpu, but the model"):
        model(torch.zeros(1, 2, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="cell: expected one of"):
        SuperpositionStackRNN(3, 2, 4, 2, 3, cell="tape")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="stack_depth: expected an int >= 1, got 0"):
        SuperpositionStackRNN(3, 2, 4, 2, 0)
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 2"):
        model(torch.tensor([[0, 3]]))
    assert model(torch.zeros(2, 0, 3)).shape == (2, 0, 2)


def test_token_ids_read_as_one_hot_vectors() -> None:
    torch.manual_seed(2)
    model = SuperpositionStackRNN(4, 3, 6, 2, 5)
    tokens = torch.tensor([[0, 3, 1, 1], [2, 2, 0, 3]])
    vectors = torch.nn.functional.one_hot(tokens, 4).float()
    assert torch.equal(model(tokens), model(vectors))
