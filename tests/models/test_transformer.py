"""The causal Transformer: its outputs on ids and vectors, causality and long inputs under
every positional encoding, ALiBi's biases per head against a reference written out by
hand, eval mode, seeds, gradients and its checks."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from torch import Tensor

from memrnn.models import build_model, registered_model
from memrnn.models.positional import alibi_bias, causal_bias, sinusoidal_encoding
from memrnn.models.transformer import POSITIONAL, CausalTransformer


def _model(positional: str = "sinusoidal", seed: int = 0, **options: Any) -> CausalTransformer:
    torch.manual_seed(seed)
    model = build_model("transformer", 6, 3, positional=positional, **options)
    assert isinstance(model, CausalTransformer)
    return model


def _tokens(batch: int, steps: int, seed: int = 0) -> Tensor:
    return torch.randint(0, 6, (batch, steps), generator=torch.Generator().manual_seed(seed))


def test_registered_with_small_defaults() -> None:
    assert registered_model("transformer").defaults == {
        "d_model": 32, "layers": 2, "heads": 4, "feedforward": 64, "dropout": 0.0,
    }  # fmt: skip
    model = _model()
    assert model.positional == "sinusoidal" and len(model.encoder.layers) == 2
    assert model.encoder.layers[0].self_attn.num_heads == 4


@pytest.mark.parametrize("positional", POSITIONAL)
def test_tokens_and_their_one_hot_vectors_give_the_same_outputs(positional: str) -> None:
    model = _model(positional)
    tokens = _tokens(2, 9)
    out = model(tokens)
    assert out.shape == (2, 9, 3)
    assert torch.equal(model(tokens.int()), out)
    vectors = torch.nn.functional.one_hot(tokens, 6).float()
    torch.testing.assert_close(model(vectors), out)
    assert model(torch.rand(2, 9, 6)).shape == (2, 9, 3)  # any vectors, not only one-hot


@pytest.mark.parametrize("positional", POSITIONAL)
def test_the_output_at_a_step_depends_on_that_step_and_earlier_ones_alone(
    positional: str,
) -> None:
    model = _model(positional)
    tokens = _tokens(3, 12)
    with torch.no_grad():
        out = model(tokens)
        for t in (0, 4, 10):
            changed = tokens.clone()
            changed[:, t + 1 :] = (changed[:, t + 1 :] + 1 + torch.arange(11 - t)) % 6
            after = model(changed)
            assert torch.equal(after[:, : t + 1], out[:, : t + 1])
            assert not torch.allclose(after[:, t + 1 :], out[:, t + 1 :])
            # and on the length: the prefix alone gives the same outputs
            torch.testing.assert_close(model(tokens[:, : t + 1]), out[:, : t + 1])


@pytest.mark.parametrize("positional", POSITIONAL)
def test_inputs_far_longer_than_training_ones(positional: str) -> None:
    model = _model(positional)
    tokens = _tokens(2, 500)
    with torch.no_grad():
        out = model(tokens)
        assert out.shape == (2, 500, 3) and bool(out.isfinite().all())
        torch.testing.assert_close(model(tokens[:, :20]), out[:, :20])


@pytest.mark.parametrize("positional", POSITIONAL)
def test_eval_mode_without_gradients_gives_the_training_outputs(positional: str) -> None:
    # PyTorch's inference fast path read ALiBi's float biases as a boolean mask (every
    # key but the query's own masked out): in eval mode under no_grad, outputs changed.
    model = _model(positional)
    tokens = _tokens(2, 30)
    out = model(tokens)
    model.eval()
    with torch.no_grad():
        assert torch.equal(model(tokens), out)


@pytest.mark.parametrize("causal", [True, False])
def test_alibi_adds_each_heads_bias_as_a_reference_attention_does(causal: bool) -> None:
    """One pre-LN layer written out by hand (Vaswani et al. 2017; Press et al. 2022):
    head h of batch row b adds slope h's biases, whatever b."""
    model = _model("alibi", layers=1, causal=causal).double()
    tokens = _tokens(3, 7)
    layer, heads, width = model.encoder.layers[0], 4, 32
    x = model.embedding(tokens)
    q, k, v = torch.nn.functional.linear(
        layer.norm1(x), layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias
    ).chunk(3, dim=-1)
    q, k, v = (z.unflatten(-1, (heads, width // heads)).transpose(1, 2) for z in (q, k, v))
    scores = q @ k.transpose(-1, -2) / math.sqrt(width // heads)
    bias = alibi_bias(heads, 7, causal=causal, dtype=torch.float64)
    weights = torch.softmax(scores + bias, dim=-1)
    x = x + layer.self_attn.out_proj((weights @ v).transpose(1, 2).flatten(2))
    x = x + layer.linear2(torch.relu(layer.linear1(layer.norm2(x))))
    expected = model.readout(model.encoder.norm(x))
    torch.testing.assert_close(model(tokens), expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("positional", POSITIONAL)
def test_their_encoder_reads_every_step_and_the_causal_one_the_past(positional: str) -> None:
    tokens = _tokens(2, 9)
    later = tokens.clone()
    later[:, 5:] = (later[:, 5:] + 1) % 6
    with torch.no_grad():
        causal, encoder = _model(positional), _model(positional, causal=False)
        assert torch.equal(causal(tokens)[:, :5], causal(later)[:, :5])
        assert not torch.allclose(encoder(tokens)[:, :5], encoder(later)[:, :5])
        if positional != "alibi":  # no mask at all
            x = encoder.embedding(tokens)
            x = x + sinusoidal_encoding(9, 32) if positional == "sinusoidal" else x
            expected = encoder.readout(encoder.encoder(x))
            torch.testing.assert_close(encoder(tokens), expected, rtol=0, atol=0)
    with pytest.raises(ValueError, match="causal"):
        _model(causal=0)


def test_the_encodings_hold_no_weights_and_each_changes_the_outputs() -> None:
    tokens = _tokens(2, 8)
    models = {p: _model(p) for p in POSITIONAL}
    first = models["none"].state_dict()
    for model in models.values():
        assert all(torch.equal(t, first[k]) for k, t in model.state_dict().items())
    with torch.no_grad():
        out = {p: m(tokens) for p, m in models.items()}
    # step 0 attends to itself alone, so ALiBi's bias there is 0; sin/cos adds PE(0)
    assert torch.equal(out["alibi"][:, 0], out["none"][:, 0])
    assert not torch.allclose(out["sinusoidal"][:, 0], out["none"][:, 0])
    assert not torch.allclose(out["alibi"][:, 1:], out["none"][:, 1:])
    # sin/cos is added to the embeddings, before the causal layers
    model = models["sinusoidal"]
    x = model.embedding(tokens) + sinusoidal_encoding(8, 32)
    expected = model.readout(model.encoder(x, mask=causal_bias(8), is_causal=True))
    torch.testing.assert_close(model(tokens), expected, rtol=0, atol=0)


@pytest.mark.parametrize("positional", ["none", "alibi"])
def test_without_added_encodings_a_constant_input_gives_constant_outputs(
    positional: str,
) -> None:
    with torch.no_grad():
        out = _model(positional)(torch.full((1, 10), 2))
        torch.testing.assert_close(out, out[:, :1].expand(-1, 10, -1))
        varied = _model("sinusoidal")(torch.full((1, 10), 2))
        assert not torch.allclose(varied, varied[:, :1].expand(-1, 10, -1))


def test_the_same_seed_gives_the_same_model_and_outputs() -> None:
    tokens = _tokens(4, 15)
    one, two = _model("alibi", seed=3), _model("alibi", seed=3)
    assert all(torch.equal(a, b) for a, b in zip(one.parameters(), two.parameters(), strict=True))
    assert torch.equal(one(tokens), two(tokens))
    other = _model("alibi", seed=4)
    assert not torch.equal(one.readout.weight, other.readout.weight)


@pytest.mark.parametrize("positional", POSITIONAL)
@pytest.mark.parametrize("norm_first", [True, False])
def test_gradients_reach_every_parameter(positional: str, norm_first: bool) -> None:
    model = _model(positional, norm_first=norm_first, dropout=0.1)
    model(_tokens(2, 10)).square().sum().backward()
    for name, param in model.named_parameters():
        assert param.grad is not None and bool(param.grad.isfinite().all()), name
        assert param.grad.abs().sum() > 0, name
    assert (model.encoder.norm is not None) == norm_first


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"d_model": 30}, r"d_model: expected a multiple of heads=4, got 30"),
        ({"d_model": 8, "heads": 3}, r"d_model: expected a multiple of heads=3, got 8"),
        (
            {"positional": "rope"},
            r"positional: expected one of none, sinusoidal, alibi, got 'rope'",
        ),
        ({"positional": "relative"}, r"positional: expected one of .*, got 'relative'"),
        ({"d_model": 0}, r"d_model: expected an int >= 1, got 0"),
        ({"layers": 0}, r"layers: expected an int >= 1, got 0"),
        ({"heads": 0}, r"heads: expected an int >= 1, got 0"),
        ({"feedforward": -1}, r"feedforward: expected an int >= 1, got -1"),
        ({"layers": 1.0}, r"layers: expected an int >= 1, got 1\.0"),
        ({"dropout": 1.0}, r"dropout: expected a"),
        ({"dropout": -0.1}, r"dropout: expected a"),
        ({"norm_first": 1}, r"norm_first: expected True or False, got 1"),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}"):
        build_model("transformer", 6, 3, **options)


def test_bad_sizes_and_inputs_are_named() -> None:
    with pytest.raises(ValueError, match=r"^input_size: expected an int >= 1, got 0"):
        build_model("transformer", 0, 3)
    with pytest.raises(ValueError, match=r"^output_size: expected an int >= 1, got 0"):
        CausalTransformer(6, 0)
    model = _model()
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 5 .* found 6"):
        model(torch.tensor([[0, 6, 1]]))
    with pytest.raises(ValueError, match=r"inputs: ids must lie in 0 \.\. 5 .* found -1"):
        model(torch.tensor([[0, -1, 1]]))
    with pytest.raises(ValueError, match=r"inputs: expected a \(B, T\) tensor of ids with T >= 1"):
        model(torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(
        ValueError, match=r"inputs: expected shape \(B, T, 6\) with T >= 1, got \(2, 4, 5\)"
    ):
        model(torch.zeros(2, 4, 5))
    with pytest.raises(ValueError, match=r"inputs: torch\.float64 on cpu, but the model is"):
        model(torch.zeros(2, 4, 6, dtype=torch.float64))
