"""Choosing among several runs on one pairs file by how they do on longer inputs.

One training run of a memory model is a draw: the same recipe learns to use its memory
in one run and, in the next, fits the training pairs without it and fails on longer
sources. The papers report the best of many draws (Delétang et al. 2023 take the maximum
over 10 seeds and 3 learning rates; Grefenstette et al. 2015 the best of a grid).
``memrnn fit`` does the same, without ever reading a test file: it trains several
candidates (models x restarts) on the shorter pairs of the training file and keeps the one
that does best on the pairs it held out, those with the longest sources
(:func:`hold_out_longest`), or on a validation file the user gives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from memrnn.tasks.text_pairs import TextPair, TextPairsTask

DEFAULT_MODELS = ("stack_lstm", "queue_lstm", "deque_lstm")
# Build options each model takes unless the user's options say otherwise. Gate noise
# (as in Grefenstette et al.'s quick profile here) makes a leaky push or pop cost loss at
# the training lengths, so training drives the gates to 0 and 1. On the own-data battery
# (one Queue-LSTM run of 3,000 steps, seeds 0 and 1, docs/length-generalisation.md) it
# copied 9-16 symbols exactly on both seeds with it (1.0, 1.0) and 0.40 and 0.51 without;
# it swapped pairs at 0.985 and 0.035 with it, 0.37 and 0.44 without.
MODEL_DEFAULTS: dict[str, dict[str, Any]] = {
    "queue_lstm": {"gate_noise": 1.0},
    "deque_lstm": {"gate_noise": 1.0},
}
# On the own-data battery (``benchmarks/own_data_candidates.py``, six memory tasks, seeds
# 0 and 1) the choice reached 90% on the longer test inputs for 4 of the 12 (task, seed)
# pairs from two candidates of a model, 6 from four, and 6 from six.
DEFAULT_RESTARTS = 4
MAX_RESTARTS = 100
HELD_OUT_FRACTION = 0.1  # the share of the pairs held out
HELD_OUT_MIN_PAIRS = 20  # a file with fewer pairs holds none out
GENERALISES = 0.9  # the held-out sequence accuracy that counts as generalising
SHARP = 0.1  # a gate blur at most this, with every held-out pair right, ends the search


@dataclass(frozen=True)
class Split:
    """A pairs file split into the pairs trained on and the pairs a choice is made on.

    Attributes:
        train: the pairs every candidate trains on.
        held_out: the pairs held out for the choice (empty: none held out).
        description: what ``held_out`` is, for the user ("the 100 pairs of 8 tokens").
    """

    train: tuple[TextPair, ...]
    held_out: tuple[TextPair, ...]
    description: str


def hold_out_longest(pairs: Sequence[TextPair], fraction: float = HELD_OUT_FRACTION) -> Split:
    """Hold out ``fraction`` of the pairs, those with the longest sources: half of the
    pairs of the longest source length at most (drawn by a fixed generator, so the same
    file gives the same split), then of the next length, and so on. Half of every length
    stays in training, so the candidates train on the file's whole range of lengths (a
    Stack-LSTM trained on reversals of 1-7 symbols fails on 9-16 far more often than one
    trained on 1-8) and are chosen on the lengths where a model that has not learned to
    use its memory fails first. A file of fewer than 20 pairs holds nothing out (the
    choice is then made on training pairs).
    """
    pairs = tuple(pairs)
    if len(pairs) < HELD_OUT_MIN_PAIRS:
        return Split(pairs, (), f"none: fewer than {HELD_OUT_MIN_PAIRS} pairs")
    need = math.ceil(fraction * len(pairs))
    rng = np.random.default_rng(0)
    held: set[int] = set()
    lengths: list[int] = []
    for length in sorted({len(p.source) for p in pairs}, reverse=True):
        of_length = [i for i, p in enumerate(pairs) if len(p.source) == length]
        take = min(len(of_length) // 2, need - len(held))
        if take > 0:
            held.update(rng.permutation(of_length)[:take].tolist())
            lengths.append(length)
        if len(held) >= need:
            break
    if not held:
        return Split(pairs, (), "none: no source length has two pairs")
    span = f"{lengths[0]}" if len(lengths) == 1 else f"{lengths[-1]}-{lengths[0]}"
    return Split(
        tuple(p for i, p in enumerate(pairs) if i not in held),
        tuple(pairs[i] for i in sorted(held)),
        f"{len(held)} pairs with sources of {span} tokens",
    )


@torch.no_grad()
def gate_blur(task: TextPairsTask, model: nn.Module, pairs: Sequence[TextPair]) -> float:
    """How far a memory model's push and pop strengths stay from 0 and 1 on ``pairs``
    (teacher forced): the mean over steps and gates of min(g, 1 - g), from 0 (every push
    and pop all or nothing) to 0.5; NaN for a model without gates (no ``trace``).

    A memory that pushes 0.85 of each symbol and pops 0.05 of the stack while it reads
    fits short training pairs and loses a symbol every 20 steps on longer ones; one whose
    gates are 0 or 1 works the same at any length. Among candidates equally right on the
    held-out pairs, the sharper one is chosen.
    """
    trace_of = getattr(model, "trace", None)
    if trace_of is None or not pairs:
        return math.nan
    batch = task.make_batch([task.encode(p) for p in pairs])
    trace = trace_of(batch.inputs.to(next(model.parameters()).device))
    steps = batch.inputs.ne(task.input_eos).to(trace.push.device)  # not the padding
    gates = [g for g in (trace.push, trace.pop, trace.push_bot, trace.pop_bot) if g is not None]
    blur = torch.stack([torch.minimum(g, 1 - g)[steps] for g in gates])
    return round(float(blur.mean()), 4)


@dataclass(frozen=True)
class Candidate:
    """One trained candidate and how it did.

    Attributes:
        model: its registered model name.
        restart: which restart of that model (0, 1, ...).
        seed: the seed of its weights and batches.
        train_accuracy: sequence accuracy on (at most 200 of) the pairs it trained on.
        held_out_accuracy: sequence accuracy on the held-out pairs.
        held_out_token_accuracy: token accuracy on them.
        held_out_loss: teacher-forced loss on them.
        gate_blur: :func:`gate_blur` on them (NaN for a model without gates), with the
            gates as trained, before any rounding.
        seconds: its training wall time.
        rounded: whether its gates are rounded to 0 or 1 when it decodes
            (``round_gates``): chosen where the held-out pairs do at least as well so.
    """

    model: str
    restart: int
    seed: int
    train_accuracy: float
    held_out_accuracy: float
    held_out_token_accuracy: float
    held_out_loss: float
    gate_blur: float
    seconds: float
    rounded: bool = False

    @property
    def name(self) -> str:
        """``model#restart``, as the fit's table and the saved model name it."""
        return f"{self.model}#{self.restart}"

    def rank(self) -> tuple[float, float, float, float]:
        """Larger is better: held-out sequence accuracy, then the sharper gates as it
        decodes (rounded gates first, a model without gates after every model with
        them), then token accuracy, then the lower loss."""
        loss = self.held_out_loss if math.isfinite(self.held_out_loss) else math.inf
        blur = self.gate_blur if math.isfinite(self.gate_blur) else math.inf
        blur = 0.0 if self.rounded else blur  # as it decodes
        return (self.held_out_accuracy, -blur, self.held_out_token_accuracy, -loss)

    def settles(self) -> bool:
        """Whether it ends the search: every held-out pair right, gates at 0 or 1 (or
        rounded to them)."""
        return self.held_out_accuracy == 1.0 and (self.rounded or self.gate_blur <= SHARP)


def choose(candidates: Sequence[Candidate]) -> int:
    """The index of the best candidate by :meth:`Candidate.rank` (the first of equals)."""
    if not candidates:
        raise ValueError("candidates: expected at least one")
    best = 0
    for i, candidate in enumerate(candidates):
        if candidate.rank() > candidates[best].rank():
            best = i
    return best


def candidate_seed(seed: int, restart: int) -> int:
    """The seed of restart ``restart`` of a fit seeded ``seed``: ``seed`` itself for the
    first, and no two (seed, restart) pairs with restart < 1000 share one."""
    return 1000 * seed + restart


def selection_record(
    candidates: Sequence[Candidate], chosen: int, held_out: str, planned: int
) -> dict[str, object]:
    """What a saved model records of the choice that made it (JSON-able): ``planned``
    candidates, of which ``candidates`` were trained."""
    return {
        "chosen": candidates[chosen].name,
        "held_out": held_out,
        "planned": planned,
        "candidates": [
            {**{k: _json_float(v) for k, v in asdict(c).items()}, "name": c.name}
            for c in candidates
        ],
    }


def _json_float(value: object) -> object:
    """``value``, but None for a float JSON cannot hold (a model without gates' blur)."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def selection_table(
    candidates: Sequence[Candidate], chosen: int, held_out: str, planned: int
) -> str:
    """The candidates as the user sees them after ``memrnn fit``: each one's training and
    held-out accuracy and seconds, the chosen one marked, why the search stopped before
    the ``planned`` candidates, and a plain warning when none reaches 90% on the held-out
    pairs."""
    lines = [f"held out: {held_out}"]
    lines.append(
        f"  {'candidate':18s} {'seed':>6s} {'train acc':>9s} {'held-out acc':>12s} "
        f"{'gate blur':>9s} {'gates':>7s} {'s':>6s}"
    )
    for i, c in enumerate(candidates):
        mark = "  <- chosen" if i == chosen else ""
        blur, gates = "-", "-"
        if math.isfinite(c.gate_blur):
            blur, gates = f"{c.gate_blur:.3f}", "rounded" if c.rounded else "soft"
        lines.append(
            f"  {c.name:18s} {c.seed:6d} {c.train_accuracy:9.3f} {c.held_out_accuracy:12.3f} "
            f"{blur:>9s} {gates:>7s} {c.seconds:6.1f}{mark}"
        )
    best = candidates[chosen]
    if len(candidates) < planned:
        lines.append(
            f"stopped after {len(candidates)} of {planned} candidates: "
            f"{candidates[-1].name} decoded every held-out pair exactly with gates at 0 or 1"
            + (" (rounded)" if candidates[-1].rounded else "")
        )
    if best.held_out_accuracy < GENERALISES:
        lines.append(
            f"warning: no candidate reached {GENERALISES:.0%} sequence accuracy on the held-out "
            f"pairs (best {best.held_out_accuracy:.3f}, {best.name}); the saved model may fail "
            "on longer inputs. Try more --steps or --restarts, another --model, or more "
            "training pairs (docs/own-data.md, 'Length generalisation on your own data')."
        )
    return "\n".join(lines)
