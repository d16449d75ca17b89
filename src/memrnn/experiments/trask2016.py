"""Trask (2016), *Hacking DeepMind's Neural Stack* (seed 001): learning to reverse.

A single-layer RNN controller drives a ``NeuralStack`` to read a short sequence of symbols
and write it back reversed. The tutorial's two findings, each tested over several seeds:

* naive: with the gate biases at 0 the tutorial's controller learned the training
  lengths without using the stack as a stack: it pushed everything and popped "half at a
  time" (every pop near 0.5).
* its fix: push bias +1 and pop bias -1 (plus an autoencoder side task), after which the
  controller pushed while reading and popped while writing. Grefenstette et al. (2015,
  Appendix B) recommend the pop bias alone, so that variant runs too.

Which of these our controller does is measured, not assumed: ``stack_use`` is 1 when the
gates follow the algorithm (push then pop) and 0 when they do the same thing while
reading and writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from torch import Tensor

from memrnn.experiments.base import (
    Cell,
    Experiment,
    Profile,
    RunRecord,
    RunSpec,
    Table,
    TrainConfig,
)
from memrnn.models.controller import MemoryRNN
from memrnn.tasks.reversal import ReversalBatch, ReversalTask

# The tutorial's printed gate values (seed 001). Naive run: d_t = 1.0 at every step and
# these u_t; fixed run (push bias +1, pop bias -1, autoencoder): one sequence of length 5,
# u_t and d_t for its 5 encoding steps and first 4 decoding steps.
_NAIVE_POP = [
    0.52627134,
    0.48875265,
    0.4833596,
    0.51072936,
    0.51525512,
    0.55418935,
    0.51561233,
    0.54271031,
    0.46972942,
    0.50030726,
    0.50420808,
    0.51277284,
    0.49249017,
    0.52770061,
    0.53647627,
    0.52879516,
    0.57190229,
    0.51895631,
    0.50232574,
    0.44804661,
    0.50789469,
    0.53620111,
    0.57897974,
    0.53155877,
]
_FIXED_POP = [
    1.42111936e-03,
    4.24234116e-05,
    4.38773521e-05,
    1.90306228e-03,
    4.46779468e-05,
    1.61383041e-03,
    9.99610386e-01,
    9.76241526e-01,
    9.99635875e-01,
]
_FIXED_PUSH = [
    9.96007159e-01,
    9.98850792e-01,
    9.98678243e-01,
    9.93183510e-01,
    9.98787118e-01,
    2.95677776e-02,
    4.76367458e-04,
    4.53054877e-04,
    5.11268758e-04,
]
GATE_COLUMNS = ["push_encode", "pop_encode", "push_decode", "pop_decode", "stack_use"]


def stack_use(
    push_encode: float, pop_encode: float, push_decode: float, pop_decode: float
) -> float:
    """How far the gates follow the reversal algorithm: 1 for push-then-pop, 0 for gates
    that do the same while reading and writing (the tutorial's "half at a time")."""
    return ((push_encode - push_decode) + (pop_decode - pop_encode)) / 2


def _tutorial(*gates: float) -> dict[str, float]:
    """The table's gate columns from (push_encode, pop_encode, push_decode, pop_decode)."""
    return {**dict(zip(GATE_COLUMNS, gates, strict=False)), "stack_use": stack_use(*gates)}


TUTORIAL_GATES = {
    "naive": _tutorial(1.0, float(np.mean(_NAIVE_POP)), 1.0, float(np.mean(_NAIVE_POP))),
    "tutorial-fix": _tutorial(
        float(np.mean(_FIXED_PUSH[:5])),
        float(np.mean(_FIXED_POP[:5])),
        float(np.mean(_FIXED_PUSH[5:])),
        float(np.mean(_FIXED_POP[5:])),
    ),
}
ACCURACY_COLUMNS = ["train_token_acc", "train_seq_acc", "long_token_acc", "long_seq_acc"]
# (push bias, pop bias) of each variant
VARIANTS = {"naive": (0.0, 0.0), "pop-bias": (0.0, -1.0), "tutorial-fix": (1.0, -1.0)}


@dataclass(frozen=True)
class Trask2016Config(TrainConfig):
    """Settings of one reversal run (the training fields come from ``TrainConfig``).

    Attributes:
        vocab_size: k, symbols in the sequences.
        hidden_size: units of the controller RNN.
        output_hidden: units of o'_t, the layer the gates and the output are read from.
        memory_width: m, the width of the stack's values.
        cell: "rnn" (the tutorial's) or "lstm".
        push_bias, pop_bias: initial biases of the push and pop gates.
        min_length, max_length: training sequences have a length drawn uniformly here.
        long_length: the longer length at which generalisation is measured.
        eval_size: sequences per evaluation, per length.
    """

    batch_size: int = 50
    lr: float = 0.01
    vocab_size: int = 4
    hidden_size: int = 8
    output_hidden: int = 8
    memory_width: int = 4
    cell: str = "rnn"
    push_bias: float = 0.0
    pop_bias: float = 0.0
    min_length: int = 2
    max_length: int = 6
    long_length: int = 12
    eval_size: int = 200

    def validate(self) -> None:
        super().validate()
        if not 1 <= self.min_length <= self.max_length:
            raise ValueError(
                f"min_length: need 1 <= min_length <= max_length, got {self.min_length} "
                f"and {self.max_length}"
            )
        self.require_positive("long_length")
        if self.cell not in ("rnn", "lstm"):
            raise ValueError(f"cell: expected rnn or lstm, got {self.cell!r}")


class ReversalRun:
    """One run: a stack RNN, the reversal task, and how to score both."""

    def __init__(self, config: Trask2016Config, device: torch.device) -> None:
        self.config = config
        self.device = device
        self.task = ReversalTask(config.vocab_size)
        self.model = MemoryRNN(
            self.task.input_size,
            self.task.output_size,
            config.hidden_size,
            config.memory_width,
            memory="stack",
            cell=config.cell,  # type: ignore[arg-type]
            output_hidden=config.output_hidden,
            push_bias=config.push_bias,
            pop_bias=config.pop_bias,
        ).to(device)

    def _batch(self, rng: np.random.Generator, size: int, length: int) -> ReversalBatch:
        batch = self.task.sample(rng, size, length)
        return ReversalBatch(
            batch.inputs.to(self.device), batch.targets.to(self.device), batch.sequences
        )

    def training_batch(self, rng: np.random.Generator) -> ReversalBatch:
        length = int(rng.integers(self.config.min_length, self.config.max_length + 1))
        return self._batch(rng, self.config.batch_size, length)

    def loss(self, batch: ReversalBatch) -> Tensor:
        logits = self.model(batch.inputs).logits
        return F.cross_entropy(logits.flatten(0, 1), batch.targets.flatten())

    def _score(self, rng: np.random.Generator, length: int) -> dict[str, float]:
        batch = self._batch(rng, self.config.eval_size, length)
        out = self.model(batch.inputs)
        token, sequence = self.task.accuracy(out.logits, batch)
        loss = F.cross_entropy(out.logits.flatten(0, 1), batch.targets.flatten())
        # The gates of the last step act on a stack that is never read again.
        push, pop = out.push[:, : 2 * length - 1], out.pop[:, : 2 * length - 1]
        return {
            "loss": float(loss),
            "token_acc": token,
            "seq_acc": sequence,
            "push_encode": float(push[:, :length].mean()),
            "pop_encode": float(pop[:, :length].mean()),
            "push_decode": float(push[:, length:].mean()) if length > 1 else float("nan"),
            "pop_decode": float(pop[:, length:].mean()) if length > 1 else float("nan"),
        }

    def evaluate(self, rng: np.random.Generator) -> dict[str, float]:
        """Every training length equally, and the long length."""
        lengths = range(self.config.min_length, self.config.max_length + 1)
        per_length = [self._score(rng, n) for n in lengths]
        metrics = {key: float(np.nanmean([m[key] for m in per_length])) for key in per_length[0]}
        long = self._score(rng, self.config.long_length)
        return {
            "loss": metrics["loss"],
            "train_token_acc": metrics["token_acc"],
            "train_seq_acc": metrics["seq_acc"],
            "long_token_acc": long["token_acc"],
            "long_seq_acc": long["seq_acc"],
            **{key: metrics[key] for key in GATE_COLUMNS[:4]},
            "stack_use": stack_use(*(metrics[key] for key in GATE_COLUMNS[:4])),
        }

    def artifacts(self, rng: np.random.Generator) -> dict[str, Any]:
        """Gate traces of one sequence, and sequence accuracy at lengths 1 .. 2 x max."""
        lengths = list(range(1, 2 * self.config.max_length + 1))
        curve = [self._score(rng, n)["seq_acc"] for n in lengths]
        batch = self._batch(rng, 1, self.config.max_length)
        out = self.model(batch.inputs)
        return {
            "lengths": lengths,
            "seq_acc_by_length": curve,
            "trace_push": out.push[0].tolist(),
            "trace_pop": out.pop[0].tolist(),
            "trace_sequence": batch.sequences[0].tolist(),
            "trace_prediction": out.logits[0].argmax(-1).tolist(),
        }


_PROFILES: dict[str, dict[str, Any]] = {
    "smoke": {
        "seeds": (0,),
        "steps": 20,
        "eval_every": 10,
        "checkpoint_every": 10,
        "batch_size": 10,
        "eval_size": 10,
        "max_length": 3,
        "long_length": 5,
    },
    "quick": {"seeds": (0, 1, 2, 3, 4), "steps": 1500, "eval_every": 250, "checkpoint_every": 250},
    "paper": {
        "seeds": tuple(range(10)),
        "steps": 15000,
        "lr": 0.003,
        "eval_every": 1000,
        "checkpoint_every": 1000,
        "max_length": 10,
        "long_length": 20,
    },
}


class Trask2016(Experiment):
    name = "trask2016"
    title = "A neural stack learns to reverse sequences, or fails to use its stack"
    reproduces = (
        "Trask (2016), Hacking DeepMind's Neural Stack (seed 001): the naive controller that "
        "pops 'half at a time', and the pop bias of Grefenstette et al. (2015), Appendix B"
    )
    config_type = Trask2016Config
    reference = "tutorial"

    def runs(self, profile: Profile) -> list[RunSpec]:
        settings = dict(_PROFILES[profile])
        seeds = settings.pop("seeds")
        specs = []
        for variant, (push_bias, pop_bias) in VARIANTS.items():
            for seed in seeds:
                config = Trask2016Config(
                    seed=seed, push_bias=push_bias, pop_bias=pop_bias, **settings
                )
                specs.append(
                    RunSpec(
                        self.name,
                        f"{variant}/seed{seed}",
                        profile,
                        config.to_dict(),
                        model=f"{config.cell.upper()}+Stack",
                        task="reversal",
                    )
                )
        return specs

    def build(self, config: TrainConfig, device: torch.device) -> ReversalRun:
        if not isinstance(config, Trask2016Config):
            raise TypeError(f"trask2016 needs a Trask2016Config, got {type(config).__name__}")
        return ReversalRun(config, device)

    def scale(self, profile: Profile) -> str:
        s = {**Trask2016Config().to_dict(), **_PROFILES[profile]}
        return (
            f"{len(s['seeds'])} seeds per variant; {s['steps']} steps of {s['batch_size']} "
            f"sequences, lengths {s['min_length']}-{s['max_length']} over {s['vocab_size']} "
            f"symbols, RNN of {s['hidden_size']} units, stack width {s['memory_width']}, "
            f"{s['optimizer']} lr {s['lr']}; generalisation at length {s['long_length']}. "
            "The tutorial trained 750,000 sequences (updates every 50) over 2 symbols with a "
            "curriculum up to length 19, by hand-written SGD on squared error."
        )

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        by_variant = _by_variant(records)

        def cell(runs: list[RunRecord], key: str, paper: float | None = None) -> Cell:
            values = [r.metrics[key] for r in runs if key in r.metrics]
            return Cell(
                float(np.mean(values)) if values else None,
                paper,
                tuple(r.spec.seed for r in runs),
                sum(r.wall_seconds for r in runs),
            )

        gates = {
            variant: {
                key: cell(runs, key, TUTORIAL_GATES.get(variant, {}).get(key))
                for key in GATE_COLUMNS
            }
            for variant, runs in by_variant.items()
        }
        accuracy = {
            variant: {key: cell(runs, key) for key in ACCURACY_COLUMNS}
            for variant, runs in by_variant.items()
        }
        counts = {
            variant: {
                "seeds": Cell(len(runs), None, tuple(r.spec.seed for r in runs)),
                "use the stack": Cell(sum(r.metrics["stack_use"] > 0.5 for r in runs)),
                "generalise": Cell(sum(r.metrics["long_seq_acc"] > 0.9 for r in runs)),
            }
            for variant, runs in by_variant.items()
        }
        return [
            Table(
                "gates",
                "Mean push and pop strength while reading (encode) and writing "
                "(decode), and stack_use, mean over seeds; the tutorial's values come from "
                "its printed traces",
                GATE_COLUMNS,
                gates,
            ),
            Table(
                "seeds",
                "Seeds whose controller uses the stack (stack_use > 0.5) and "
                "reverses sequences of the long length (long_seq_acc > 0.9)",
                ["seeds", "use the stack", "generalise"],
                counts,
            ),
            Table(
                "accuracy",
                "Greedy accuracy at the training lengths and at the long length, mean over seeds",
                ACCURACY_COLUMNS,
                accuracy,
            ),
        ]

    def findings(self, records: Sequence[RunRecord]) -> list[str]:
        lines = []
        for variant, runs in _by_variant(records).items():
            used = sum(r.metrics["stack_use"] > 0.5 for r in runs)
            symptom = sum(r.metrics["stack_use"] < 0.25 for r in runs)
            general = sum(r.metrics["long_seq_acc"] > 0.9 for r in runs)
            push, pop = VARIANTS[variant]
            length = runs[0].spec.config["long_length"]
            lines.append(
                f"{variant} (push bias {push:+g}, pop bias {pop:+g}): {used} of {len(runs)} "
                f"seeds use the stack as a stack (stack_use > 0.5), {symptom} show the "
                f"tutorial's symptom (stack_use < 0.25), {general} reverse length-{length} "
                "sequences (over 90% fully correct)."
            )
        return lines

    def figures(self, records: Sequence[RunRecord]) -> dict[str, Figure]:
        by_variant = _by_variant(records)
        traces = Figure(figsize=(10, 1.5 * len(by_variant) + 0.6), layout="constrained")
        grid = traces.subplots(len(by_variant), 2, squeeze=False)
        for row, (variant, runs) in enumerate(by_variant.items()):
            ranked = sorted(runs, key=lambda r: r.metrics["stack_use"])
            for col, (which, record) in enumerate((("best", ranked[-1]), ("worst", ranked[0]))):
                axes = grid[row, col]
                gates = np.array([record.artifacts["trace_push"], record.artifacts["trace_pop"]])
                image = axes.imshow(gates, vmin=0, vmax=1, cmap="viridis", aspect="auto")
                axes.set_yticks([0, 1], ["push", "pop"])
                axes.axvline(len(record.artifacts["trace_sequence"]) - 0.5, color="white")
                axes.set_title(
                    f"{variant}, {which} seed ({record.spec.seed}, stack_use "
                    f"{record.metrics['stack_use']:.2f}): reading | writing",
                    fontsize=8,
                )
        for axes in grid[-1]:
            axes.set_xlabel("time step")
        traces.colorbar(image, ax=grid, shrink=0.8)

        curves = Figure(figsize=(5, 3), layout="constrained")
        axes = curves.add_subplot()
        config = records[0].spec.config
        axes.axvspan(
            config["min_length"] - 0.5,
            config["max_length"] + 0.5,
            color="0.9",
            label="training lengths",
        )
        for variant, runs in by_variant.items():
            mean = np.mean([r.artifacts["seq_acc_by_length"] for r in runs], axis=0)
            axes.plot(runs[0].artifacts["lengths"], mean, marker="o", label=variant)
        axes.set_xlabel("sequence length")
        axes.set_ylabel("sequences fully correct (mean over seeds)")
        axes.set_ylim(-0.02, 1.02)
        axes.legend(fontsize=8)
        return {"gate-traces": traces, "accuracy-by-length": curves}


def _by_variant(records: Sequence[RunRecord]) -> dict[str, list[RunRecord]]:
    """Records grouped by variant, in the order of ``VARIANTS``, each sorted by seed."""
    groups: dict[str, list[RunRecord]] = {}
    for record in sorted(records, key=lambda r: r.spec.seed):
        groups.setdefault(record.spec.name.split("/")[0], []).append(record)
    return {variant: groups[variant] for variant in VARIANTS if variant in groups}
