"""The Elman RNN (the plain tanh RNN of Delétang et al. 2023, Table 2) against
``torch.nn.RNN`` with the same weights, outputs and gradients, and the IRNN as its ReLU
form."""

from __future__ import annotations

import pytest
import torch

from memrnn.models import IRNN, ElmanRNN, HiddenState, build_model


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_elman_rnn_is_torchs_rnn(nonlinearity: str) -> None:
    torch.manual_seed(0)
    model = ElmanRNN(7, 3, 6, readout=5, nonlinearity=nonlinearity).double()
    reference = torch.nn.RNN(7, 6, nonlinearity=nonlinearity, batch_first=True).double()
    with torch.no_grad():
        reference.weight_ih_l0.copy_(model.C.weight.T)  # one-hot inputs pick its rows
        reference.bias_ih_l0.zero_()
        reference.weight_hh_l0.copy_(model.W.weight)
        reference.bias_hh_l0.copy_(model.W.bias)
    tokens = torch.randint(0, 7, (4, 9), generator=torch.Generator().manual_seed(1))
    one_hot = torch.nn.functional.one_hot(tokens, 7).double()
    ours = model.features(tokens)
    theirs, _ = reference(one_hot)
    torch.testing.assert_close(ours, theirs)
    ours.sin().sum().backward()
    theirs.sin().sum().backward()
    assert model.W.weight.grad is not None and model.C.weight.grad is not None
    torch.testing.assert_close(model.W.weight.grad, reference.weight_hh_l0.grad)
    torch.testing.assert_close(model.C.weight.grad, reference.weight_ih_l0.grad.T)


def test_the_irnn_is_the_relu_elman_rnn_from_the_identity() -> None:
    torch.manual_seed(2)
    irnn = IRNN(5, 2, 4)
    assert irnn.nonlinearity == "relu"
    assert torch.equal(irnn.W.weight, torch.eye(4)) and not irnn.W.bias.any()
    plain = ElmanRNN(5, 2, 4, nonlinearity="relu", recurrent_scale=1.0)
    plain.load_state_dict(irnn.state_dict())
    tokens = torch.randint(0, 5, (3, 6))
    assert torch.equal(plain(tokens), irnn(tokens))


def test_elman_rnn_streams_and_is_registered() -> None:
    torch.manual_seed(3)
    model = build_model("rnn", input_size=5, output_size=2)
    assert isinstance(model, ElmanRNN) and model.nonlinearity == "tanh"
    tokens = torch.randint(0, 5, (2, 8))
    first, state = model.stream(tokens[:, :3])
    rest, _ = model.stream(tokens[:, 3:], state)
    assert isinstance(state, HiddenState)
    torch.testing.assert_close(torch.cat([first, rest], dim=1), model(tokens))


def test_bad_nonlinearity_is_named() -> None:
    with pytest.raises(ValueError, match="nonlinearity: expected one of"):
        ElmanRNN(5, 2, 4, nonlinearity="sigmoid")
