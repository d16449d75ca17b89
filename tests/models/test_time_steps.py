"""Recurrent forwards written as loops over time take each step of a sequence that needs a
gradient from one ``unbind``: indexing step t inside the loop would make each step's
backward a zero tensor of the whole sequence, O(T^2) work in all (for a matrix cell of
the A-LSTM, GRU or stack RNN, a sixth to a quarter of its training step)."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from memrnn.models.grouped import Grouped
from memrnn.models.registry import build_model_for
from memrnn.tasks import make_task
from tests.models.autograd_graph import graph_nodes

STEPS = 7  # no other size of these models is 7


def _time_step_selects(output: Tensor) -> list[tuple[int, ...]]:
    """The sizes of the tensors that a ``select`` in ``output``'s graph took one time step
    out of (a dimension of ``STEPS`` at the dimension it indexed)."""
    found = []
    for node in graph_nodes(output):
        if type(node).__name__ == "SelectBackward0":
            sizes = tuple(int(s) for s in node._saved_self_sym_sizes)  # type: ignore[attr-defined]
            if sizes[node._saved_dim] == STEPS:  # type: ignore[attr-defined]
                found.append(sizes)
    return found


@pytest.mark.parametrize("model", ["irnn", "gru", "alstm", "fast_weights", "stack_rnn"])
def test_no_step_is_indexed_out_of_a_sequence_alone_or_grouped(model: str) -> None:
    torch.manual_seed(0)
    task = make_task("reversal", vocab_size=8)
    members = [build_model_for(model, task, hidden_size=6) for _ in range(2)]
    tokens = torch.randint(0, 8, (2, 3, STEPS))
    assert _time_step_selects(members[0](tokens[0]).sum()) == []
    assert _time_step_selects(Grouped(members)(tokens).sum()) == []


def test_the_check_finds_a_step_indexed_out() -> None:
    x = torch.randn(3, STEPS, 4, requires_grad=True)
    h = torch.zeros(3, 4)
    for t in range(STEPS):
        h = torch.tanh(h + x[:, t])
    assert len(_time_step_selects(h.sum())) == STEPS
