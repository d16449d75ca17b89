"""Many runs as one by ``torch.func.vmap`` over the members' own forward: the memory's
autograd node batches by its rule (the members folded into the batch, member-major),
so a grouped memory model computes what its members compute alone; a model that vmap
cannot run, or whose forward draws random numbers, is not groupable."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from memrnn.models import MemoryAugmentedLSTM, MemoryRNN, OneHotLSTM
from memrnn.models.grouped import _vmapped, groupable
from tests.models.grouped_checks import inputs, loss, members


def _stacked(models: list[torch.nn.Module]) -> dict[str, Tensor]:
    names = [name for name, _ in models[0].named_parameters()]
    params = [dict(m.named_parameters()) for m in models]
    return {n: torch.stack([p[n].detach() for p in params]).requires_grad_() for n in names}


BUILDS = {
    "stack-lstm": lambda: MemoryAugmentedLSTM(5, 4, hidden_size=6, embedding=3, memory_width=2),
    "queue-lstm": lambda: MemoryAugmentedLSTM(
        5, 4, hidden_size=6, embedding=3, memory_width=2, memory="queue"
    ),
    "deque-lstm": lambda: MemoryAugmentedLSTM(
        5, 4, hidden_size=6, embedding=3, memory_width=2, memory="deque"
    ),
    "stack-rnn-cell": lambda: MemoryRNN(5, 4, hidden_size=6, memory_width=3, cell="rnn"),
    "deque-o-prime": lambda: MemoryRNN(
        5, 4, hidden_size=6, memory_width=3, memory="deque", output_hidden=5
    ),
}


@pytest.mark.parametrize("tokens", [True, False], ids=["ids", "vectors"])
@pytest.mark.parametrize("name", BUILDS)
def test_the_memory_batches_under_vmap_as_its_members_compute(name: str, tokens: bool) -> None:
    models = members(BUILDS[name], torch.float64, scale=2.0)
    x = inputs(tokens, 3, 7, torch.float64)
    params = _stacked(models)
    logits = _vmapped(models[0], params, x)
    alone = torch.stack([m(x[k]) for k, m in enumerate(models)])
    torch.testing.assert_close(logits, alone, rtol=0, atol=1e-12)
    loss(logits).backward()
    loss(alone).backward()
    for n, p in params.items():
        own = torch.stack([dict(m.named_parameters())[n].grad for m in models])
        assert p.grad is not None and bool(p.grad.abs().sum() > 0), n
        torch.testing.assert_close(p.grad, own, rtol=0, atol=1e-10, msg=n)


def test_what_vmap_cannot_run_or_that_draws_noise_is_not_groupable() -> None:
    class Subclassed(OneHotLSTM):  # nn.LSTM has no batching rule, and no grouped forward
        pass

    assert not groupable(Subclassed(5, 4, 6))

    class Noisy(MemoryAugmentedLSTM):
        pass

    assert groupable(Noisy(5, 4, hidden_size=6, embedding=3, memory_width=2))
    assert not groupable(Noisy(5, 4, hidden_size=6, embedding=3, memory_width=2, gate_noise=1.0))
