"""Trask (2016), *Hacking DeepMind's Neural Stack*: learning to reverse.

A single-layer RNN controller drives a ``NeuralStack`` to read a short sequence of symbols
and write it back reversed. The tutorial's two findings, each tested over several seeds:

* naive: with small initial gate biases, drawn from U(0.1, 0.3) for push and
  U(-0.1, 0.1) for pop, the tutorial's controller learned the training lengths without
  using the stack as a stack: it pushed everything and popped "half at a time" (every
  pop near 0.5).
* its fix ("Part 6", "Hint: Autoencoder"): push bias U(1, 1.2), pop bias U(-1, -0.8) and
  an autoencoder side task, after which the controller pushed while reading and popped
  while writing. The side task (``autoencoder_loss``) adds two sigmoid layers without
  bias, one on the controller state h_t and one on o'_t, each trained to reproduce the
  previous step's input x_{t-1} at every step after the first, by squared error with
  the main task's weight. Grefenstette et al. (2015, Appendix B) recommend the pop bias
  of -1 alone, so that variant runs too.

Which of these our controller does is measured, not assumed: ``stack_use`` is 1 when the
gates follow the algorithm (push then pop) and 0 when they do the same thing while
reading and writing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from torch import Tensor, nn

from memrnn.experiments.base import Profile, RunContext, RunRecord, RunSpec, TrainedExperiment
from memrnn.experiments.config import TrainConfig
from memrnn.experiments.grid import Grid, grid_runs
from memrnn.experiments.tables import (
    Cell,
    PaperTables,
    Printed,
    Table,
    group,
    in_order,
    mean_cell,
    paper_number,
)
from memrnn.models.checks import check_inputs
from memrnn.models.controller import CellKind, MemoryRNN
from memrnn.tasks.reversal import ReversalBatch, ReversalTask

# The gate values Trask (2016) printed. Naive run: d_t = 1.0 at every step and these u_t;
# fixed run (push bias U(1, 1.2), pop bias U(-1, -0.8), autoencoder side task): one
# sequence of length 5, u_t and d_t for its 5 encoding steps and first 4 decoding steps.
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


# The tutorial's numbers, as the gates table lays them out: the means of its traces.
PAPER: PaperTables = {
    "gates": {
        variant: {column: Printed(value) for column, value in gates.items()}
        for variant, gates in {
            "naive": _tutorial(1.0, float(np.mean(_NAIVE_POP)), 1.0, float(np.mean(_NAIVE_POP))),
            "tutorial-fix": _tutorial(
                float(np.mean(_FIXED_PUSH[:5])),
                float(np.mean(_FIXED_POP[:5])),
                float(np.mean(_FIXED_PUSH[5:])),
                float(np.mean(_FIXED_POP[5:])),
            ),
        }.items()
    }
}
ACCURACY_COLUMNS = ["train_token_acc", "train_seq_acc", "long_token_acc", "long_seq_acc"]


@dataclass(frozen=True)
class Variant:
    """How a variant starts and trains: its gate biases, each drawn from
    U(low, low + bias_range) (the tutorial's ``np.random.rand(1) * 0.2 + low``; a constant
    when ``bias_range`` is 0), and whether it trains the autoencoder side task."""

    push_bias: float
    pop_bias: float
    bias_range: float = 0.0
    autoencoder: bool = False

    def describe(self) -> str:
        """The biases and side task in words, e.g. "push bias U(0.1, 0.3), pop bias ..."."""

        def bias(low: float) -> str:
            return f"U({low:g}, {low + self.bias_range:g})" if self.bias_range else f"{low:+g}"

        words = f"push bias {bias(self.push_bias)}, pop bias {bias(self.pop_bias)}"
        return words + (", autoencoder side task" if self.autoencoder else "")


VARIANTS = {
    # Trask (2016), the first controller: b_d = rand * 0.2 + 0.1, b_u = rand * 0.2 - 0.1
    "naive": Variant(0.1, -0.1, bias_range=0.2),
    # Grefenstette et al. (2015), Appendix B
    "pop-bias": Variant(0.0, -1.0),
    # Trask (2016), Part 6: b_d = rand * 0.2 + 1, b_u = rand * 0.2 - 1, and the side task
    "tutorial-fix": Variant(1.0, -1.0, bias_range=0.2, autoencoder=True),
}

# Each variant over seeds; what changes with the profile.
_VARIANT_AXIS = tuple(VARIANTS)
PROFILES: dict[Profile, Grid] = {
    "smoke": Grid(
        {"variant": _VARIANT_AXIS, "seed": (0,)},
        {
            "steps": 20,
            "eval_every": 10,
            "checkpoint_every": 10,
            "batch_size": 10,
            "eval_size": 10,
            "max_length": 3,
            "long_length": 5,
        },
    ),
    "quick": Grid(
        {"variant": _VARIANT_AXIS, "seed": (0, 1, 2, 3, 4)},
        {"steps": 1500, "eval_every": 250, "checkpoint_every": 250},
    ),
    "paper": Grid(
        {"variant": _VARIANT_AXIS, "seed": tuple(range(10))},
        {
            "steps": 15000,
            "lr": 0.003,
            "eval_every": 1000,
            "checkpoint_every": 1000,
            "max_length": 10,
            "long_length": 20,
        },
    ),
}


@dataclass(frozen=True)
class Trask2016Config(TrainConfig):
    """Settings of one reversal run (the training fields come from ``TrainConfig``).

    Attributes:
        vocab_size: k, symbols in the sequences.
        hidden_size: units of the controller RNN.
        output_hidden: units of o'_t, the layer the gates and the output are read from.
        memory_width: m, the width of the stack's values.
        cell: "rnn" (the tutorial's) or "lstm".
        push_bias, pop_bias: the initial biases of the push and pop gates, or with
            ``bias_range`` the low ends of the ranges they are drawn from.
        bias_range: each initial bias is drawn from U(low, low + bias_range) at
            initialisation, by torch's generator (which the runner seeds with ``seed``);
            0 for the constants themselves.
        autoencoder: train the tutorial's autoencoder side task (``autoencoder_loss``)
            beside the reversal.
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
    cell: CellKind = "rnn"
    push_bias: float = 0.0
    pop_bias: float = 0.0
    bias_range: float = 0.0
    autoencoder: bool = False
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
        if not self.bias_range >= 0:
            raise ValueError(f"bias_range: must not be negative, got {self.bias_range}")


def initial_biases(config: Trask2016Config) -> tuple[float, float]:
    """The (push, pop) gate biases a run starts from: the configured constants, or with a
    ``bias_range`` each drawn from U(low, low + bias_range) by torch's generator."""
    if config.bias_range == 0:
        return config.push_bias, config.pop_bias
    push, pop = (config.bias_range * torch.rand(2, dtype=torch.float64)).tolist()
    return config.push_bias + push, config.pop_bias + pop


def autoencoder_loss(inputs: Tensor, from_h: Tensor, from_o: Tensor) -> Tensor:
    """Trask (2016)'s autoencoder side task, the loss the "Hint: Autoencoder" code trains.

    At every step t >= 1 (nothing at t = 0) each of the two heads, ``from_h`` (its xo_t, a
    sigmoid of h_t) and ``from_o`` (its o_prime_x_t, a sigmoid of o'_t), predicts the
    previous step's whole input x_{t-1}, symbol and phase flags, by squared error
    1/2 ||x_{t-1} - y_t||^2: the tutorial's deltas (x_{t-1} - y_t) y_t (1 - y_t). Both
    weigh as much as the main task (its ``*= 1``), and as there each sequence's sum over
    steps is divided by its source length L = T / 2 (its learning rate max_alpha / L),
    as is the reversal's cross-entropy; the mean over the batch.

    Args:
        inputs: (B, T, I) the inputs x_t, T = 2L.
        from_h, from_o: (B, T, I) the two heads' sigmoid outputs.
    """
    if inputs.ndim != 3 or inputs.shape[1] < 2:
        raise ValueError(f"inputs: expected (B, T, I) with T >= 2, got {tuple(inputs.shape)}")
    for name, head in (("from_h", from_h), ("from_o", from_o)):
        if head.shape != inputs.shape:
            raise ValueError(
                f"{name}: expected the inputs' shape {tuple(inputs.shape)}, got {tuple(head.shape)}"
            )
    target = inputs[:, :-1]
    squares = (target - from_h[:, 1:]).square() + (target - from_o[:, 1:]).square()
    return 0.5 * squares.sum(dim=(1, 2)).mean() / (inputs.shape[1] // 2)


class AutoencodingStackRNN(MemoryRNN):
    """``MemoryRNN`` with the heads of Trask (2016)'s side task: sigmoid layers without
    bias from h_t (its W_hox) and from o'_t (its W_opx) to the size of the input.

    Takes ``MemoryRNN``'s arguments; ``forward`` is ``MemoryRNN``'s.
    """

    def __init__(
        self, input_size: int, output_size: int, hidden_size: int, memory_width: int, **kw: Any
    ) -> None:
        super().__init__(input_size, output_size, hidden_size, memory_width, **kw)
        self.from_h = nn.Linear(hidden_size, input_size, bias=False)
        self.from_o = nn.Linear(self.output_hidden, input_size, bias=False)

    def with_reconstructions(self, inputs: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(logits, the head on h_t, the head on o'_t), each (B, T, ·), for ``inputs``
        (B, T, I). Runs ``step`` at each time step: the whole-sequence path of ``forward``
        does not return h_t. No gate noise is added (this experiment uses none)."""
        check_inputs(inputs, self.input_size, self.h0)
        b, t_len, _ = inputs.shape
        carry = self.start(b, t_len)
        o_primes, states = [], []
        for t in range(t_len):
            out, carry = self.step(carry, inputs[:, t])
            o_primes.append(out.o_prime)
            states.append(carry.h)
        o_prime, h = torch.stack(o_primes, dim=1), torch.stack(states, dim=1)
        return (
            self.out(o_prime),
            torch.sigmoid(self.from_h(h)),
            torch.sigmoid(self.from_o(o_prime)),
        )


class ReversalRun:
    """One run: a stack RNN, the reversal task, and how to score both."""

    def __init__(self, config: Trask2016Config, device: torch.device) -> None:
        self.config = config
        self.device = device
        self.task = ReversalTask(config.vocab_size)
        push_bias, pop_bias = initial_biases(config)
        model = AutoencodingStackRNN if config.autoencoder else MemoryRNN
        self.model = model(
            self.task.input_size,
            self.task.output_size,
            config.hidden_size,
            config.memory_width,
            memory="stack",
            cell=config.cell,
            output_hidden=config.output_hidden,
            push_bias=push_bias,
            pop_bias=pop_bias,
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
        """Cross-entropy of the reversal, plus ``autoencoder_loss`` with the side task."""
        if isinstance(self.model, AutoencodingStackRNN):
            logits, from_h, from_o = self.model.with_reconstructions(batch.inputs)
            side = autoencoder_loss(batch.inputs, from_h, from_o)
        else:
            logits, side = self.model(batch.inputs), None
        loss = F.cross_entropy(logits.flatten(0, 1), batch.targets.flatten())
        return loss if side is None else loss + side

    def _score(self, rng: np.random.Generator, length: int) -> dict[str, float]:
        batch = self._batch(rng, self.config.eval_size, length)
        out = self.model.trace(batch.inputs)
        token, sequence = self.task.accuracy(out.outputs, batch)
        loss = F.cross_entropy(out.outputs.flatten(0, 1), batch.targets.flatten())
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
        """Every training length equally, and the long length. ``loss`` is the reversal's
        cross-entropy alone, without the side task, so that variants compare."""
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
        out = self.model.trace(batch.inputs)
        return {
            "lengths": lengths,
            "seq_acc_by_length": curve,
            "trace_push": out.push[0].tolist(),
            "trace_pop": out.pop[0].tolist(),
            "trace_sequence": batch.sequences[0].tolist(),
            "trace_prediction": out.outputs[0].argmax(-1).tolist(),
        }


class Trask2016(TrainedExperiment[Trask2016Config]):
    name = "trask2016"
    title = "A neural stack learns to reverse sequences, or fails to use its stack"
    reproduces = (
        "Trask (2016), Hacking DeepMind's Neural Stack: the naive controller that pops 'half "
        "at a time', and its fix (push bias +1, pop bias -1 and an autoencoder side task); "
        "and the pop bias alone of Grefenstette et al. (2015), Appendix B"
    )
    config_type = Trask2016Config
    reference = "tutorial"

    def runs(self, profile: Profile) -> list[RunSpec]:
        return grid_runs(
            self,
            profile,
            PROFILES[profile],
            name="{variant}/seed{seed}",
            labels=lambda c: (f"{c.cell.upper()}+Stack", "reversal"),
            settings=lambda point: dataclasses.asdict(VARIANTS[point["variant"]]),
        )

    def build(self, config: Trask2016Config, context: RunContext) -> ReversalRun:
        return ReversalRun(config, context.device)

    def scale(self, profile: Profile) -> str:
        grid = PROFILES[profile]
        s = {**Trask2016Config().to_dict(), **grid.settings}
        seeds = len({point["seed"] for point in grid.points()})
        ours = (
            f"{seeds} seed{'s' if seeds > 1 else ''} per variant; {s['steps']} steps of "
            f"{s['batch_size']} sequences, lengths {s['min_length']}-{s['max_length']} over "
            f"{s['vocab_size']} symbols, RNN of {s['hidden_size']} units, stack width "
            f"{s['memory_width']}, {s['optimizer']} lr {s['lr']} on cross-entropy (the side "
            f"task on squared error); generalisation at length {s['long_length']}."
        )
        if profile == "smoke":  # a test of the pipeline, set beside nothing of the tutorial's
            return ours
        return (
            f"{ours} The tutorial trained by hand-written SGD on squared error over 2 symbols: "
            "its naive controller on about 2.96 million sequences (updates every 10) with a "
            "curriculum up to length 19, its fix on 750,000 sequences (updates every 50) of "
            "lengths 3-5."
        )

    def tables(self, records: Sequence[RunRecord]) -> list[Table]:
        by_variant = _by_variant(records)
        gates = {
            variant: {
                key: mean_cell(runs, key, paper=paper_number(PAPER, "gates", variant, key))
                for key in GATE_COLUMNS
            }
            for variant, runs in by_variant.items()
        }
        accuracy = {
            variant: {key: mean_cell(runs, key) for key in ACCURACY_COLUMNS}
            for variant, runs in by_variant.items()
        }
        counts = {
            variant: {
                "seeds": Cell(len(runs), seeds=tuple(r.spec.seed for r in runs)),
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
        if any(r.spec.profile == "smoke" for r in records):
            return []  # seconds of training: its counts would say nothing of the tutorial's
        lines = []
        for variant, runs in _by_variant(records).items():
            used = sum(r.metrics["stack_use"] > 0.5 for r in runs)
            symptom = sum(r.metrics["stack_use"] < 0.25 for r in runs)
            general = sum(r.metrics["long_seq_acc"] > 0.9 for r in runs)
            length = runs[0].spec.config["long_length"]
            lines.append(
                f"{variant} ({VARIANTS[variant].describe()}): {used} of {len(runs)} "
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
    return in_order(group(records, "variant"), VARIANTS)
