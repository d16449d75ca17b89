"""Fast Weights RNN: the attention form against the literal matrix A_t, its hand-written
backward, per-example layer normalisation; the readout the baselines share."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from memrnn.models.baselines import IRNN, AttentionLSTM, OneHotLSTM
from memrnn.models.fast_weights import FastWeightsRNN, _dots, _FastTerm
from memrnn.models.readout import ReadoutRNN


def _pair(**options: float) -> tuple[FastWeightsRNN, FastWeightsRNN]:
    torch.manual_seed(0)
    attention = FastWeightsRNN(7, 3, 6, form="attention", **options).double()  # type: ignore[arg-type]
    matrix = FastWeightsRNN(7, 3, 6, form="matrix", **options).double()  # type: ignore[arg-type]
    matrix.load_state_dict(attention.state_dict())
    with torch.no_grad():  # a recurrent matrix that is not a multiple of the identity
        for model in (attention, matrix):
            model.W.weight.copy_(torch.linspace(-0.3, 0.3, 36, dtype=torch.float64).view(6, 6))
    return attention, matrix


@pytest.mark.parametrize("inner_steps", [1, 3])
@pytest.mark.parametrize("decay", [0.0, 0.9, 1.0])
def test_attention_form_equals_the_matrix_form(inner_steps: int, decay: float) -> None:
    attention, matrix = _pair(inner_steps=inner_steps, decay=decay, fast_lr=0.05)
    tokens = torch.randint(0, 7, (5, 9), generator=torch.Generator().manual_seed(1))
    a, m = attention.features(tokens), matrix.features(tokens)
    torch.testing.assert_close(a, m, rtol=1e-10, atol=1e-12)
    grads = []
    for model, out in ((attention, a), (matrix, m)):
        model.zero_grad()
        (out * torch.arange(out.numel(), dtype=out.dtype).view_as(out).sin()).sum().backward()
        grads.append({n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
    assert set(grads[0]) == {"C.weight", "W.weight", "W.bias", "norm.weight", "norm.bias"}
    for name in grads[0]:
        torch.testing.assert_close(grads[0][name], grads[1][name], rtol=1e-9, atol=1e-11)


def test_the_memory_changes_the_states() -> None:
    attention, _ = _pair(fast_lr=0.5)
    tokens = torch.randint(0, 7, (3, 8), generator=torch.Generator().manual_seed(2))
    without, _ = _pair(fast_lr=0.0)
    assert not torch.allclose(attention.features(tokens), without.features(tokens))


def _literal(weights: torch.Tensor, h: torch.Tensor, past: list[torch.Tensor]) -> torch.Tensor:
    """A_{t-1} h written out: sum_tau w_tau h_tau (h_tau . h)."""
    terms = [w * p * (p * h).sum(1, keepdim=True) for w, p in zip(weights, past, strict=True)]
    return torch.stack(terms).sum(0)


def test_fast_term_gradcheck() -> None:
    g = torch.Generator().manual_seed(3)
    weights = torch.rand(4, dtype=torch.float64, generator=g)
    h = torch.randn(2, 5, dtype=torch.float64, generator=g, requires_grad=True)
    past = [
        torch.randn(2, 5, dtype=torch.float64, generator=g, requires_grad=True) for _ in range(4)
    ]
    assert torch.autograd.gradcheck(lambda h, *p: _FastTerm.apply(weights, h, *p), (h, *past))
    torch.testing.assert_close(_FastTerm.apply(weights, h, *past), _literal(weights, h, past))


@pytest.mark.parametrize("compiling", [False, True])
def test_fast_term_in_float32_at_the_matrix_sizes(
    compiling: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eagerly the dot products take the row-times-matrix orientation, compiled the
    einsum (the two can round differently): each against the literal sum in float64,
    forward and backward, at the matrix's sizes."""
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: compiling)
    g = torch.Generator().manual_seed(4)
    weights = torch.rand(20, generator=g)
    h = torch.randn(64, 32, generator=g, requires_grad=True)
    past = [torch.randn(64, 32, generator=g, requires_grad=True) for _ in range(20)]
    out = _FastTerm.apply(weights, h, *past)
    grad = torch.randn(64, 32, generator=g)
    got = torch.autograd.grad(out, (h, *past), grad)
    wide = [x.detach().double().requires_grad_() for x in (h, *past)]
    literal = _literal(weights.double(), wide[0], wide[1:])
    expected = torch.autograd.grad(literal, wide, grad.double())
    torch.testing.assert_close(out.double(), literal, rtol=1e-5, atol=1e-5)
    for a, b in zip(got, expected, strict=True):
        torch.testing.assert_close(a.double(), b, rtol=1e-5, atol=1e-5)
    H = torch.stack(past, 1)
    form = torch.einsum("btr,br->bt", H, h) if compiling else torch.bmm(h[:, None], H.mT)[:, 0]
    assert torch.equal(_dots(H, h), form)


def test_layer_norm_is_per_example_not_over_the_batch() -> None:
    torch.manual_seed(4)
    model = FastWeightsRNN(7, 3, 6, recurrent_scale=0.3)
    tokens = torch.randint(0, 7, (4, 6))
    other = tokens.clone()
    other[1:] = (other[1:] + 3) % 7  # change every example but the first
    torch.testing.assert_close(model(tokens)[0], model(other)[0])
    torch.testing.assert_close(model(tokens[:1])[0], model(tokens)[0])


@pytest.mark.parametrize("model_type", [FastWeightsRNN, IRNN, OneHotLSTM, AttentionLSTM])
def test_last_step_scores_the_last_step_alone(model_type: type[ReadoutRNN]) -> None:
    torch.manual_seed(5)
    model = model_type(37, 10, 8)  # type: ignore[call-arg]
    tokens = torch.randint(0, 37, (3, 11))
    scores = model.last_step(tokens)
    assert scores.shape == (3, 10)
    every = model(tokens)
    assert every.shape == (3, 11, 10)
    torch.testing.assert_close(every[:, -1], scores)
    scores.sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    changed = tokens.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 37
    assert not torch.allclose(model.last_step(changed), scores)


def test_attention_lstm_attends_over_the_past_only() -> None:
    torch.manual_seed(6)
    model = AttentionLSTM(5, 2, 4)
    tokens = torch.randint(0, 5, (2, 7))
    later = tokens.clone()
    later[:, 4:] = (later[:, 4:] + 1) % 5
    torch.testing.assert_close(model.features(tokens)[:, :4], model.features(later)[:, :4])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="readout: expected an int >= 1, got 0"):
        IRNN(37, 10, 8, readout=0)
    with pytest.raises(ValueError, match="inner_steps: expected an int >= 1, got 0"):
        FastWeightsRNN(7, 3, 6, inner_steps=0)
    with pytest.raises(ValueError, match=r"decay: expected a finite number in \[0, 1\], got 1\.5"):
        FastWeightsRNN(7, 3, 6, decay=1.5)
    with pytest.raises(ValueError, match="form: expected"):
        FastWeightsRNN(7, 3, 6, form="dense")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 6"):
        FastWeightsRNN(7, 3, 6)(torch.tensor([[7]]))
    with pytest.raises(ValueError, match="inputs: expected a"):
        FastWeightsRNN(7, 3, 6)(torch.tensor([1, 2]))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_attention_form_on_cuda_equals_the_matrix_form() -> None:
    attention, matrix = _pair(fast_lr=0.05)
    tokens = torch.randint(0, 7, (5, 9), generator=torch.Generator().manual_seed(1))
    a = attention.cuda().features(tokens.cuda())
    torch.testing.assert_close(a.cpu(), matrix.features(tokens), rtol=1e-8, atol=1e-10)
    a.sum().backward()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: FastWeightsRNN(7, 3, 6, fast_lr=float("nan")), "fast_lr: expected a finite"),
        (lambda: FastWeightsRNN(7, 3, 6, recurrent_scale=float("inf")), "recurrent_scale:"),
        (lambda: IRNN(7, 3, 6, recurrent_scale=float("nan")), "recurrent_scale: expected a"),
        (lambda: IRNN(7, 3, True), "hidden_size: expected an int >= 1, got True"),
    ],
)
def test_non_finite_settings_are_named(build: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()
