"""The superposition Stack-RNN (Joulin and Mikolov 2015; Suzgun et al. 2019)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

import memrnn.models.stack_rnn as stack_rnn
from memrnn.models.grouped import Grouped
from memrnn.models.stack_rnn import SuperpositionStackRNN
from tests.structures.test_superposition import all_rows


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


def _numbers(run: Callable[[], torch.Tensor], params: list[torch.Tensor]) -> list[torch.Tensor]:
    """The outputs of ``run`` and the gradients of ``params`` of a loss on them."""
    for p in params:
        p.grad = None
    out = run()
    weights = torch.linspace(-1, 1, out[0].numel(), dtype=out.dtype).view(out.shape[1:])
    (out.square() + out * weights).sum().backward()
    return [out.detach(), *(p.grad.clone() for p in params if p.grad is not None)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
@pytest.mark.parametrize(("width", "depth", "steps"), [(8, 82, 23), (3, 10, 30), (8, 12, 40)])
def test_the_stack_grown_as_it_fills_gives_the_numbers_of_all_rows(
    monkeypatch: pytest.MonkeyPatch, cell: str, width: int, depth: int, steps: int,
    dtype: torch.dtype,
) -> None:  # fmt: skip
    """The model alone (its logits, the state after the last step, the gradients) and K
    members grouped, bit for bit as with all D rows from the first step: at a depth the
    sequences never fill and at depths they pass, where pushes drop the bottom row."""

    def build(seed: int) -> SuperpositionStackRNN:
        torch.manual_seed(seed)
        model = SuperpositionStackRNN(5, 4, 6, width, depth, cell=cell).to(dtype)  # type: ignore[arg-type]
        with torch.no_grad():
            for p in model.parameters():
                p.mul_(2.0)  # actions spread over (0, 1)
        return model

    model = build(0)
    group = Grouped([build(seed) for seed in range(3)])
    tokens = torch.randint(0, 5, (3, 4, steps), generator=torch.Generator().manual_seed(1))
    runs = {
        "alone": (lambda: model(tokens[0]), list(model.parameters())),
        "state": (lambda: model.stream(tokens[0])[1].stack, list(model.parameters())),
        "grouped": (lambda: group(tokens), [p for m in group.members for p in m.parameters()]),
    }
    for name, (run, params) in runs.items():
        lean = _numbers(run, params)
        with monkeypatch.context() as patch:
            patch.setattr(stack_rnn, "with_room", all_rows)
            full = _numbers(run, params)
        # every weight has a gradient, but W_y's two for the stack after the last step
        assert len(lean) == len(full) == len(params) + 1 - 2 * (name == "state"), name
        for a, b in zip(lean, full, strict=True):
            assert torch.equal(a, b), name
