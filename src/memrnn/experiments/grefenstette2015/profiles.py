"""The runs of each profile: the quick profile's settings per model (with the measurements
that chose them), the smoke profile's toy sizes, the paper's grid, and the runs' names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memrnn.experiments.base import Profile
from memrnn.experiments.grefenstette2015.config import MODELS, Grefenstette2015Config
from memrnn.experiments.grefenstette2015.paper import (
    PAPER_DEPTHS,
    PAPER_HIDDEN,
    PAPER_LRS,
    PAPER_SETTINGS,
)
from memrnn.experiments.grid import Axis, Grid, Point
from memrnn.tasks.transduction import TASKS

# Quick profile: the models and tasks of Figure 2a at a CPU scale, with settings per model.
# Gate noise for the queue and the deque, whose leaks pile up (see the package docstring);
# not for the stack, whose leaks land on its newest values and are popped with them.
# Weight decay (AdamW, 0.1) for the stack and the deque, against a late drift at the test
# lengths while training stays perfect: the Stack-LSTM on reversal reached test coarse
# accuracy 1.00 at steps 3000-4000 and fell to 0.86 at 8000 under Adam, 0.69 with gate
# noise; cosine learning-rate decay did not stop it (0.715 at 5000). With decay 0.1 it
# ended at 1.00 (from 7000 on).
# The deque has two starts, and each cell reports the one that trains better (the paper
# picks by training perplexity; see ``select``):
# - "top-open": the top end's push bias +1 (push ~0.73), the bottom's -2 (~0.12). A deque
#   whose ends start alike leaves itself empty on copy and memorises short sources in its
#   LSTM instead (stuck at lengths 8-12 in each of 5 settings tried: two seeds, a
#   curriculum from 12, both push biases at +1, weight decay 0.1); opened at the top it
#   reaches test coarse 1.00 on copy by step 1500. It never learns reversal past length
#   16 (12 with decay).
# - "even": both ends alike, which learns reversal by step 2000. Its test accuracy there
#   swings (0.72-1.00 over steps 4500-8000 with gate noise 1; 0.3 without noise); with
#   gate noise 2 it read 0.975-1.00 at every 500th step from 4500 (evaluated every 100
#   steps: 0.855 at 5100, then 0.925-1.00 from 5200).
QUICK_STARTS: dict[str, dict[str, dict[str, Any]]] = {
    "lstm": {"": {}},
    "stack": {"": {"optimizer": "adamw", "weight_decay": 0.1}},
    "queue": {"": {"gate_noise": 1.0}},
    "deque": {
        "top-open": {"optimizer": "adamw", "weight_decay": 0.1, "gate_noise": 1.0,
                     "push_bias": 1.0, "bottom_push_bias": -2.0},
        "even": {"optimizer": "adamw", "weight_decay": 0.1, "gate_noise": 2.0},
    },
}  # fmt: skip
# The training and test lengths scored every 500 steps, the curriculum's every 100: the
# scores between take time and change nothing that is trained (each evaluation draws from
# a generator of its own, the curriculum's lengths first); `--set score_every=100` gives
# the finer curves, with the same final numbers.
QUICK_SETTINGS: dict[str, Any] = {"score_every": 500}
SMOKE_SETTINGS: dict[str, Any] = {
    "steps": 4, "eval_every": 2, "checkpoint_every": 2, "eval_size": 4, "max_length": 4,
    "test_min_length": 5, "test_max_length": 6, "hidden": 8, "embedding": 4, "memory_width": 4,
}  # fmt: skip
# Each task and model family: the quick profile's starts per model (the smoke profile
# at toy sizes on two tasks), the paper's grid of depths, hidden sizes and learning rates.
_STARTS: dict[str, Axis] = {
    "model": MODELS,
    "start": lambda point: tuple(QUICK_STARTS[point["model"]]),
    "seed": (0,),
}
PROFILES: dict[Profile, Grid] = {
    "smoke": Grid({"task": ("reversal", "copy"), **_STARTS}, SMOKE_SETTINGS),
    "quick": Grid({"task": TASKS, **_STARTS}, QUICK_SETTINGS),
    "paper": Grid(
        {
            "task": TASKS,
            "model": MODELS,
            "layers": lambda point: PAPER_DEPTHS if point["model"] == "lstm" else (1,),
            "hidden": PAPER_HIDDEN,
            "lr": PAPER_LRS,
            "seed": (0,),
        },
        PAPER_SETTINGS,
    ),
}


def start_settings(point: Point) -> Mapping[str, Any]:
    """The config fields of the quick profile's start at ``point`` (none on the paper's
    grid, which has no starts)."""
    return QUICK_STARTS[point["model"]][point["start"]] if "start" in point else {}


def run_name(point: Point, c: Grefenstette2015Config) -> str:
    """A run's name: its task, its variant and its seed, such as "copy/deque-even/seed0",
    or on the paper's grid "copy/lstm4/h256-lr5e-04/seed0" ("stack/h512-lr1e-03" for a
    memory model)."""
    if "start" in point:
        variant = f"{c.model}-{point['start']}" if point["start"] else c.model
    else:
        depth = str(c.layers) if c.model == "lstm" else ""
        variant = f"{c.model}{depth}/h{c.hidden}-lr{c.lr:.0e}"
    return f"{c.task}/{variant}/seed{c.seed}"
