"""The runs of each profile: a grid of models x tasks x learning rates x seeds, where the
model reads the task's kind of input, with the scale of the profile.

``paper`` is Delétang et al.'s protocol (2023, section 4): lengths 1 to N = 40 for
training and up to 500 for testing, batch 128, Adam at {1e-4, 3e-4, 5e-4}, 1,000,000
steps, 10 seeds, hidden size 256, for every registered model and task (a user's own
included); for a GPU or a cluster. ``laptop`` is their protocol for their five
architectures (the tanh RNN, the LSTM, the Stack-RNN, the Tape-RNN and the Transformer) on
their 15 tasks, scaled down for a 2-core CPU: fewer steps, seeds and
rates, a smaller width, and test lengths 41-100. ``quick`` is a stated subset of models and
tasks that runs on a laptop CPU; ``smoke`` tests the plumbing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memrnn.experiments.base import Profile
from memrnn.experiments.grid import Grid, Point
from memrnn.experiments.matrix.config import RESERVOIR_MODELS
from memrnn.experiments.matrix.protocol import MODELS, every_model, every_task, protocol, reads
from memrnn.tasks import task_names

# Delétang et al.'s tasks, in the order of their Table 2 (levels: regular, deterministic
# context-free, context-sensitive).
CHOMSKY_TASKS = (
    "even_pairs",
    "modular_arithmetic",
    "parity_check",
    "cycle_navigation",
    "stack_manipulation",
    "reverse_string",
    "modular_arithmetic_brackets",
    "solve_equation",
    "duplicate_string",
    "missing_duplicate",
    "odds_first",
    "binary_addition",
    "binary_multiplication",
    "compute_sqrt",
    "bucket_sort",
)


@dataclass(frozen=True)
class Scale:
    """What a profile runs, beyond its grid: N, the test bound, the sizes."""

    models: Sequence[str]
    tasks: Sequence[str]
    lrs: Sequence[float]
    seeds: Sequence[int]
    test_max: int
    settings: Mapping[str, Any]


def _available(names: Sequence[str], known: Sequence[str]) -> tuple[str, ...]:
    """The names of ``names`` that are registered (``known``): a set of tasks or models
    may grow after a profile names it."""
    return tuple(name for name in names if name in set(known))


SCALES: dict[Profile, Scale] = {
    "smoke": Scale(
        models=("lstm", "stack_lstm"),
        tasks=("reversal", "rsm_dyck2"),
        lrs=(1e-3,),
        seeds=(0,),
        test_max=8,
        settings={
            "steps": 6,
            "batch_size": 4,
            "eval_every": 3,
            "checkpoint_every": 3,
            "train_max": 4,
            "eval_size": 4,
            "hidden_size": 8,
        },
    ),
    "quick": Scale(
        models=MODELS,
        tasks=(
            "parity_check",
            "even_pairs",
            "reversal",
            "reverse_string",
            "rsm_dyck2",
            "copy",
            "duplicate_string",
            "bucket_sort",
        ),
        lrs=(3e-3, 1e-2),
        seeds=(0, 1, 2, 3),
        test_max=40,
        settings={
            "steps": 2000,
            "batch_size": 32,
            "eval_every": 200,
            "checkpoint_every": 500,
            "train_max": 10,
            "eval_size": 32,
            "hidden_size": 32,
        },
    ),
    "laptop": Scale(
        models=("rnn", "lstm", "stack_rnn", "tape_rnn", "transformer"),
        tasks=CHOMSKY_TASKS,
        lrs=(1e-3,),
        seeds=(0, 1, 2),
        test_max=100,
        settings={
            "steps": 2000,
            "batch_size": 32,
            "eval_every": 500,
            "checkpoint_every": 500,
            "train_max": 40,
            "eval_size": 32,
            "hidden_size": 64,
        },
    ),
    "paper": Scale(
        models=(),  # every registered model (``every_model``)
        tasks=(),  # every registered task (``every_task``)
        lrs=(1e-4, 3e-4, 5e-4),
        seeds=tuple(range(10)),
        test_max=500,
        settings={
            "steps": 1_000_000,
            "batch_size": 128,
            "eval_every": 10_000,
            "checkpoint_every": 10_000,
            "train_max": 40,
            "eval_size": 128,
            "hidden_size": 256,
        },
    ),
}


def grid(profile: Profile) -> Grid:
    """The profile's grid: each model with each task it reads, each rate, each seed."""
    scale = SCALES[profile]
    models = _available(scale.models, every_model()) if scale.models else every_model()
    tasks = _available(scale.tasks, task_names()) if scale.tasks else every_task()
    return Grid(
        {
            "model": models,
            "task": lambda point: [t for t in tasks if fits(t, scale, point["model"])],
            # a reservoir model has no learning rate: it fits once
            "lr": lambda point: scale.lrs[:1] if point["model"] in RESERVOIR_MODELS else scale.lrs,
            "seed": scale.seeds,
        },
        scale.settings,
    )


def fits(task: str, scale: Scale, model: str) -> bool:
    """Whether ``model`` reads ``task``'s input and the task has lengths beyond the
    profile's N to test (associative retrieval stops at 26 pairs, the RSM copy at 20)."""
    longest = protocol(task).longest
    return reads(model, task) and (longest is None or longest > scale.settings["train_max"])


def task_settings(profile: Profile) -> Callable[[Point], dict[str, Any]]:
    """A run's fields that follow from its task: the vocabulary of the transduction
    tasks, and the profile's test bound, cut at the task's longest length."""
    bound = SCALES[profile].test_max

    def settings(point: Point) -> dict[str, Any]:
        task = protocol(point["task"])
        test_max = bound if task.longest is None else min(bound, task.longest)
        return {"vocab_size": task.options.get("vocab_size", 0), "test_max": test_max}

    return settings
