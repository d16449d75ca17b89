"""Which models meet which tasks, and each task's place in the Chomsky hierarchy.

The levels are those of Delétang et al. (2023, Table A.1) for their tasks and, for ours,
the class of the language or transduction: reversal, the Dyck languages and the LR(1)
languages of Paassen et al. (2021) are deterministic context-free; copying a string
(``ww``, the queue's task in Grefenstette et al. 2015) is context-sensitive; bigram flip
is a finite-state transduction and the latch a regular language. A task without a place
(associative retrieval, a memory test) is "other".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memrnn.experiments.matrix.reservoir import RESERVOIR_MODELS, reservoir_reads
from memrnn.models.registry import model_names, registered_model
from memrnn.tasks import make_task, task_names

LEVELS = ("regular", "context-free", "context-sensitive", "other")

# The models of the matrix, in the report's row order: the plain recurrent networks, the
# memory-augmented ones, attention, and the reservoir models (fitted, not trained).
MODELS = (
    "irnn",
    "gru",
    "lstm",
    "deep_lstm",
    "alstm",
    "fast_weights",
    "stack_rnn",
    "stack_lstm",
    "queue_lstm",
    "deque_lstm",
    "transformer",
    *RESERVOIR_MODELS,
)


# Registered names the matrix leaves out, and why.
LEFT_OUT = {
    "deep_stack_machine": "trained by teacher forcing, not by the task's loss",
    "conjugation": "its grammar has no sources as short as N",
    "trask_reversal": "reversal again, in the tutorial's layout",
    "dyck_lm": "a language model's next token is a random draw, so accuracy cannot score it "
    "(Hewitt et al. score it by their bracket-closing metric); Dyck joins as rsm_dyck2",
}


def every_model() -> tuple[str, ...]:
    """Every model the matrix trains or fits: ``MODELS`` first, then any other registered
    (a user's own, say), in name order."""
    known = [*(m for m in model_names() if m not in LEFT_OUT), *RESERVOIR_MODELS]
    return (*[m for m in MODELS if m in known], *[m for m in known if m not in MODELS])


def every_task() -> tuple[str, ...]:
    """Every registered task the matrix runs, in name order."""
    return tuple(t for t in task_names() if t not in LEFT_OUT)


@dataclass(frozen=True)
class TaskProtocol:
    """How the matrix runs one task.

    Attributes:
        level: its level in the Chomsky hierarchy (``LEVELS``).
        options: options of ``make_task`` (the transduction tasks' vocabulary).
        longest: the longest length the task has (None: unbounded); the test range stops
            there.
    """

    level: str
    options: dict[str, Any] = field(default_factory=dict)
    longest: int | None = None


# Our tasks; Delétang et al.'s register their own level (``chomsky_level``). The RSM
# benchmarks' words are drawn from a grammar, whole draws outside the range rejected:
# beyond 100 symbols (the longest test length of Paassen et al. 2021) that takes minutes
# a batch, or fails. Their copy tasks count bit vectors, 20 at most (repeat copy: 10).
# The SVO -> SOV grammar of Grefenstette et al. (2015) is drawn the same way: 128
# sentences of 80 words take 9 s, of 128 words 37 s, and of 200 fail.
_RSM_LONGEST = 100
OWN_TASKS = {
    "bigram_flip": TaskProtocol("regular", {"vocab_size": 8}),
    "rsm_latch": TaskProtocol("regular", longest=_RSM_LONGEST),
    "reversal": TaskProtocol("context-free", {"vocab_size": 8}),
    **{
        f"rsm_{name}": TaskProtocol("context-free", longest=_RSM_LONGEST)
        for name in ("dyck1", "dyck2", "dyck3", "anbn", "palindrome", "json")
    },
    "copy": TaskProtocol("context-sensitive", {"vocab_size": 8}),
    "rsm_copy": TaskProtocol("context-sensitive", longest=20),
    "rsm_repeat_copy": TaskProtocol("context-sensitive", longest=10),
    "svo_sov": TaskProtocol("other", longest=80),
    "associative_retrieval": TaskProtocol("other", longest=26),
}


def protocol(task: str) -> TaskProtocol:
    """The protocol of ``task``: ours from ``OWN_TASKS``, else the level the task class
    declares (``chomsky_level``), with its defaults."""
    if task in OWN_TASKS:
        return OWN_TASKS[task]
    level = getattr(type(make_task(task)), "chomsky_level", "other")
    return TaskProtocol(level if level in LEVELS else "other")


def reads(model: str, task: str) -> bool:
    """Whether ``model`` reads the kind of input ``task`` gives (tokens or vectors); a
    reservoir model, whether the task gives stack actions."""
    made = make_task(task, **protocol(task).options)
    if model in RESERVOIR_MODELS:
        return reservoir_reads(made)
    return made.input_kind in registered_model(model).accepts
