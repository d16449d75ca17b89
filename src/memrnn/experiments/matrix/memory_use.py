"""Why a memory model's cell falls short: did it use its memory, and did it fit the
training lengths?

A cell under 90% can mean two things: the model never learned to use its memory (it
solved what it could of the training lengths in its hidden state), or it used the memory
and the way it used it does not carry to longer inputs. At the end of each run of a model
with push and pop gates (``trace``: the Stack-RNN and the Stack-, Queue- and DeQue-LSTMs)
the matrix records, on a batch of its longest training lengths, the share of steps that
push and that pop more than half a value; of the Tape-RNN (``moves``), the share of steps
that move the head (one cell or a jump) with a weight above a half, and that jump. The
report's findings read them beside the training score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from memrnn.experiments.base import RunRecord
from memrnn.experiments.matrix.tables import SCORE, SOLVED
from memrnn.experiments.tables import group
from memrnn.tasks import Task

USED = 0.05  # the share of steps that push, and that pop, above which the memory is used
STRONG = 0.5  # a push or pop of more than half a value counts


@torch.no_grad()
def memory_use(
    model: nn.Module, task: Task, rng: np.random.Generator, lengths: tuple[int, int], size: int
) -> dict[str, float] | None:
    """The shares of steps (each sequence's up to its last scored step: no padding)
    whose push, and whose pop, is above ``STRONG`` (or, for a tape, whose moves and whose
    jumps are), on ``size`` fresh sequences of ``lengths``; None for a model with neither
    gates nor a tape."""
    trace_of, moves_of = getattr(model, "trace", None), getattr(model, "moves", None)
    if trace_of is None and moves_of is None:
        return None
    device = next(model.parameters()).device
    batch = task.sample_batch(rng, size, *lengths).to(device)
    steps = batch.mask.flip(1).cumsum(1).flip(1) > 0

    def share(gates: list[torch.Tensor]) -> float:
        strong = torch.stack([g > STRONG for g in gates]).any(dim=0)
        return float(strong[steps].double().mean())

    if moves_of is not None:
        actions = moves_of(batch.inputs)  # stay, left, right, jump left, jump right
        return {
            "move_share": share(list(actions[..., 1:].unbind(-1))),
            "jump_share": share(list(actions[..., 3:].unbind(-1))),
        }
    trace = trace_of(batch.inputs)  # type: ignore[misc]
    pushes = [g for g in (trace.push, trace.push_bot) if g is not None]
    pops = [g for g in (trace.pop, trace.pop_bot) if g is not None]
    return {"push_share": share(pushes), "pop_share": share(pops)}


def memory_findings(records: Sequence[RunRecord]) -> list[str]:
    """For each cell of a model with gates whose best run is under 90%: whether its best
    run fitted the training lengths and used its memory, in one sentence."""
    found = []
    for (model, task), runs in sorted(group(records, "model", "task").items()):
        used = [r for r in runs if isinstance(r.artifacts.get("memory_use"), dict)]
        if not used:
            continue
        best = max(used, key=lambda r: r.metrics[SCORE])
        if best.metrics[SCORE] >= SOLVED:
            continue
        use: dict[str, Any] = best.artifacts["memory_use"]
        fitted = best.metrics.get("train_score", 0.0) >= SOLVED
        if "move_share" in use:  # a tape: moving the head is using it
            used = use["move_share"] >= USED
            seen = (f"moves above {STRONG} at {use['move_share']:.0%} of its steps, jumps "
                    f"at {use['jump_share']:.0%}")  # fmt: skip
        else:
            used = min(use["push_share"], use["pop_share"]) >= USED
            seen = (f"pushes above {STRONG} at {use['push_share']:.0%} of its steps, pops "
                    f"at {use['pop_share']:.0%}")  # fmt: skip
        if not fitted:
            verdict = "did not fit the training lengths"
        elif not used:
            verdict = "fitted the training lengths without using its memory"
        else:
            verdict = "used its memory and did not extrapolate"
        found.append(
            f"{model} on {task} (best run {best.metrics[SCORE]:.2f} on the test lengths, "
            f"{best.metrics.get('train_score', float('nan')):.2f} on the training lengths; "
            f"{seen}): {verdict}"
        )
    return found
