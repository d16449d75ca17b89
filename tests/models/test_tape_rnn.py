"""The Tape-RNN (Delétang et al. 2023) against a literal reference written as the authors
write it: operation matrices (rolled identities) applied to the tape, step by step."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from memrnn.models import TapeRNN, TapeState, build_model
from memrnn.models.grouped import Grouped
from memrnn.models.tape_rnn import tape_sources, tape_step
from tests.models.grouped_checks import check_against_members, inputs, members


def reference_tape_step(tape: Tensor, actions: Tensor, write: Tensor, length: Tensor) -> Tensor:
    """Their ``_update_memory``, one row at a time: the five operations as M x M rolled
    identities (stay, left, right, jump left, jump right) mixed by the actions."""
    rows = []
    for b in range(tape.shape[0]):
        written = torch.cat([write[b : b + 1], tape[b, 1:]])
        eye, n = torch.eye(tape.shape[1], dtype=tape.dtype), int(length[b])
        operations = [eye.roll(s, dims=0) for s in (0, -1, 1, -n, n)]
        moved = torch.stack([torch.einsum("mM,Mc->mc", op, written) for op in operations])
        rows.append(torch.einsum("Amc,A->mc", moved, actions[b]))
    return torch.stack(rows)


def reference_run(model: TapeRNN, x: Tensor, length: Tensor) -> Tensor:
    """The model's logits, step by step, with PyTorch's own RNNCell and the tape above."""
    h = x.new_zeros(x.shape[0], model.hidden_size)
    tape = x.new_zeros(x.shape[0], model.tape_size, model.cell_size)
    logits = []
    for t in range(x.shape[1]):
        h = model.cell(torch.cat([x[:, t], tape[:, 0]], dim=1), h)
        actions = torch.softmax(model.actions(h), dim=-1)
        tape = reference_tape_step(tape, actions, model.write(h), length)
        logits.append(model.readout(torch.relu(h)))
    return torch.stack(logits, 1)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_tape_step_is_the_authors_operations(seed: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    tape = torch.randn(4, 7, 3, generator=gen, dtype=torch.float64, requires_grad=True)
    actions = torch.softmax(torch.randn(4, 5, generator=gen, dtype=torch.float64), -1)
    actions.requires_grad_()
    write = torch.randn(4, 3, generator=gen, dtype=torch.float64, requires_grad=True)
    length = torch.tensor([0, 1, 5, 12])  # a jump longer than the tape wraps round
    ours, theirs = (
        tape_step(tape, actions, write, tape_sources(length, 7)),
        reference_tape_step(tape, actions, write, length),
    )
    torch.testing.assert_close(ours, theirs)
    weights = torch.randn(ours.shape, generator=gen, dtype=torch.float64)
    ours_g = torch.autograd.grad((ours * weights).sum(), [tape, actions, write])
    theirs_g = torch.autograd.grad((theirs * weights).sum(), [tape, actions, write])
    for a, b in zip(ours_g, theirs_g, strict=True):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("shared", [True, False])
def test_a_tape_step_under_vmap_is_each_members_step(shared: bool) -> None:
    gen = torch.Generator().manual_seed(0)
    tape = torch.randn(3, 4, 7, 2, generator=gen, dtype=torch.float64, requires_grad=True)
    actions = torch.softmax(torch.randn(3, 4, 5, generator=gen, dtype=torch.float64), -1)
    write = torch.randn(3, 4, 2, generator=gen, dtype=torch.float64)
    lengths = torch.tensor([[0, 1, 5, 12], [3, 3, 2, 6], [1, 0, 0, 9]])
    sources = [tape_sources(lengths[0 if shared else k], 7) for k in range(3)]
    if shared:
        got = torch.func.vmap(tape_step, in_dims=(0, 0, 0, None))(tape, actions, write, sources[0])
    else:
        stacked = tuple(torch.stack(s) for s in zip(*sources, strict=True))
        got = torch.func.vmap(tape_step)(tape, actions, write, stacked)
    want = torch.stack([tape_step(tape[k], actions[k], write[k], sources[k]) for k in range(3)])
    torch.testing.assert_close(got, want)
    weights = torch.randn(got.shape, generator=gen, dtype=torch.float64)
    (grad,) = torch.autograd.grad((got * weights).sum(), [tape])
    (expected,) = torch.autograd.grad((want * weights).sum(), [tape])
    torch.testing.assert_close(grad, expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_model_is_its_literal_reference_outputs_and_gradients(seed: int) -> None:
    torch.manual_seed(seed)
    model = TapeRNN(6, 4, 12, cell_size=3, tape_size=5, mlp=(7,), length_token=5).double()
    ids = torch.randint(0, 5, (3, 9))
    ids[0, 4:], ids[1, 2:] = 5, 5  # inputs of 4, 2 and 9 steps (no blank)
    x = torch.nn.functional.one_hot(ids, 6).double()
    ours = model(ids)
    theirs = reference_run(model, x, torch.tensor([4, 2, 9]))
    torch.testing.assert_close(ours, theirs)
    weights = torch.randn_like(ours)
    params = list(model.parameters())
    ours_g = torch.autograd.grad((ours * weights).sum(), params)
    theirs_g = torch.autograd.grad((theirs * weights).sum(), params)
    for a, b in zip(ours_g, theirs_g, strict=True):
        torch.testing.assert_close(a, b)


def test_the_input_length_is_the_steps_before_the_first_length_token() -> None:
    ids = torch.tensor([[0, 1, 3, 3, 2], [3, 0, 0, 0, 0], [0, 1, 2, 0, 1]])
    x = torch.nn.functional.one_hot(ids, 4).float()
    assert TapeRNN(4, 2, 8, length_token=3).input_length(x).tolist() == [2, 0, 5]
    assert TapeRNN(4, 2, 8).input_length(x).tolist() == [5, 5, 5]


def test_a_sequence_in_chunks_gives_the_whole_sequences_outputs() -> None:
    torch.manual_seed(0)
    model = TapeRNN(5, 3, 10, cell_size=2, tape_size=6, length_token=4)
    ids = torch.randint(0, 5, (2, 8))
    whole = model(ids)
    length = model.input_length(torch.nn.functional.one_hot(ids, 5).float())
    first, state = model.stream(ids[:, :3], model.initial_state(2, length))
    second, _ = model.stream(ids[:, 3:], state)
    torch.testing.assert_close(torch.cat([first, second], 1), whole)


def test_grouped_members_run_as_one_under_vmap() -> None:
    group = members(lambda: TapeRNN(5, 7, 8, cell_size=2, tape_size=4, length_token=4))
    assert Grouped(group).vmapped
    check_against_members(group, inputs(True, 3, 6, torch.float32), 1e-5)


def test_it_joins_the_registry_and_bad_arguments_are_named() -> None:
    model = build_model("tape_rnn", 5, 3)
    assert isinstance(model, TapeRNN) and model.tape_size == 40 and model.cell_size == 8
    with pytest.raises(ValueError, match="length_token"):
        TapeRNN(5, 3, length_token=5)
    with pytest.raises(ValueError, match="mlp"):
        TapeRNN(5, 3, mlp=(0,))
    with pytest.raises(ValueError, match="state"):
        model(torch.zeros(1, 2, dtype=torch.long), state="tape")  # type: ignore[arg-type]
    bad = TapeState(torch.zeros(1, 32), torch.zeros(1, 40, 8), torch.zeros(1))
    with pytest.raises(ValueError, match=r"state\.length"):
        model(torch.zeros(1, 2, dtype=torch.long), state=bad)


def test_the_matrix_gives_it_the_blank_of_a_chomsky_task() -> None:
    from memrnn.experiments.matrix.config import MatrixConfig
    from memrnn.experiments.matrix.run import make_cell_task, model_options

    config = MatrixConfig(model="tape_rnn", task="reverse_string", seed=0, lr=1e-3)
    task = make_cell_task(config)
    assert model_options(config, task)["length_token"] == task.alphabet_size
