"""The runs of each profile: every model on every data set (and the appendix's
1024-neuron ESNs, ``large``) over repeats; the smoke profile a few models on two data
sets at toy sizes. The paper profile follows the paper's protocol (a search of 20 sets,
then 10 repeats); the quick profile fixes the hyperparameters and runs fewer repeats."""

from __future__ import annotations

from typing import Any

from memrnn.experiments.base import Profile
from memrnn.experiments.grid import Grid, Point
from memrnn.experiments.paassen2021.config import DEEP_MODELS, LARGE_ESN, paper_neurons
from memrnn.experiments.paassen2021.paper import ESN_MODELS, MODELS
from memrnn.tasks.rsm_benchmarks import COPY_TASKS, LANGUAGE_TASKS, TASKS

# (model, task) -> values for the quick profile; anything unlisted keeps the defaults,
# which solved latch and the languages for the random and CRJ RSMs. The LDN needs a
# short window (theta 3) for the parser's decisions on the languages, and a window past
# the stack depth of 20 with a wide SVM kernel for copy (measured with ``evaluate`` on
# separate data sets, 512 neurons); repeat copy keeps the copy values. The ESNs get
# their RSM's reservoir, so that the comparison isolates the stack.
_LDN_LANGUAGE = {"theta": 3.0}
_LDN_COPY = {"theta": 30.0, "gamma_factor": 0.03, "alpha": 1e-3}
QUICK_PARAMS: dict[tuple[str, str], dict[str, float]] = {
    **{("LDN-RSM", task): _LDN_COPY for task in COPY_TASKS},
    **{("LDN-RSM", task): _LDN_LANGUAGE for task in ("latch", *LANGUAGE_TASKS)},
    **{("LDN-ESN", task): {"theta": 30.0} for task in COPY_TASKS},
    **{("LDN-ESN", task): _LDN_LANGUAGE for task in ("latch", *LANGUAGE_TASKS)},
}


QUICK_SEEDS = {False: 5, True: 2}  # repeats of the reservoir models, of the deep models
QUICK_LARGE_SEEDS = 2  # repeats of the 1024-neuron ESNs: each fit takes about 5 s
QUICK_EPOCHS = 300
SMOKE: dict[str, Any] = {"n_train": 8, "n_test": 4, "neurons": 27, "steps": 3, "theta": 8.0}
SMOKE_MODELS = ("LDN-ESN", "LDN-RSM", "GRU", "DSM")
SMOKE_TASKS = ("dyck1", "copy")


def _models(point: Point) -> tuple[str, ...]:
    """Every model, or the appendix's three ESNs where the point is ``large``."""
    return ESN_MODELS if point["large"] else MODELS


PROFILES: dict[Profile, Grid] = {
    "smoke": Grid(
        {"large": (False,), "model": SMOKE_MODELS, "task": SMOKE_TASKS, "seed": (0,)}, SMOKE
    ),
    "quick": Grid(
        {
            "large": (False, True),
            "model": _models,
            "task": TASKS,
            "seed": lambda point: range(
                QUICK_LARGE_SEEDS if point["large"] else QUICK_SEEDS[point["model"] in DEEP_MODELS]
            ),
        },
        {"steps": QUICK_EPOCHS},
    ),
    "paper": Grid(
        {
            "large": (False, True),
            "model": _models,
            "task": TASKS,
            "seed": (0,),
        },
        {"repeats": 10, "steps": 10_000},
    ),
}


def settings(profile: Profile, point: Point) -> dict[str, Any]:
    """The settings of a run that follow from its model and task: the paper's neurons (or
    the appendix's 1024), the quick profile's fixed hyperparameters, the paper profile's
    search (none for the deep models)."""
    model, task = point["model"], point["task"]
    chosen: dict[str, Any] = {
        "neurons": LARGE_ESN if point["large"] else paper_neurons(model, task)
    }
    if profile == "quick":
        chosen.update(QUICK_PARAMS.get((model, task), {}))
    if profile == "paper":
        chosen["search"] = 0 if model in DEEP_MODELS else 20
    return chosen


def scale(profile: Profile) -> str:
    """What the profile's runs are, against the paper's protocol."""
    if profile == "smoke":
        return (
            f"smoke: {SMOKE['n_train']} training and {SMOKE['n_test']} test sequences, "
            f"{SMOKE['neurons']} neurons, {SMOKE['steps']} epochs for the deep models, one "
            f"data set per run and no search, for {', '.join(SMOKE_MODELS)} on "
            f"{' and '.join(SMOKE_TASKS)}; its tables leave the paper's numbers out."
        )
    neurons = (
        f"256 neurons for every model and 512 for the reservoir models on copy and "
        f"repeat copy (the paper's footnote 4 names 'the copy task'), and the three ESNs "
        f"again with {LARGE_ESN} (its Appendix A)"
    )
    if profile == "quick":
        seeds = QUICK_SEEDS
        return (
            f"100 training and 100 test sequences per data set as in the paper; {neurons}; "
            f"the reservoir models run {seeds[False]} repeats ({QUICK_LARGE_SEEDS} for the "
            f"{LARGE_ESN}-neuron ESNs) with the fixed hyperparameters listed below (no "
            f"search); the deep models run {seeds[True]} repeats of {QUICK_EPOCHS} epochs "
            "(one word each) instead of the paper's 10 repeats of 10,000, so their "
            "numbers are not the paper's setting."
        )
    return (
        "the paper's protocol: 20 random hyperparameter sets x 3 data sets, then 10 "
        f"repeats; deep models 10,000 epochs of one word each; {neurons}"
    )
