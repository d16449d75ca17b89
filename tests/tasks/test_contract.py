"""Every registered task keeps the Task contract: batches at its training and test
lengths (shapes, dtypes, masks, ids, padding, seeded determinism, teachers), perfect
outputs score as solved and random ones do not, and bad arguments are named."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.tasks import (
    IGNORE_INDEX,
    ChomskyTask,
    StackTask,
    Task,
    TaskBatch,
    make_task,
    task_names,
)
from memrnn.tasks.transduction import TASKS as TRANSDUCTION_TASKS

BATCH = 12
LOWER_IS_BETTER = {"error", "mae"}
_OWN_METRICS = {
    "associative_retrieval": ("error",),
    "dyck_lm": ("bracket_closing",),
    **{name: ("coarse", "fine") for name in TRANSDUCTION_TASKS},
    **{name: ("mae",) for name in task_names() if name.startswith("rsm_")},
    **{
        name: ("token_accuracy",)
        for name in task_names()
        if isinstance(make_task(name), ChomskyTask)
    },
}


def _ranges(task: Task) -> list[tuple[int, int]]:
    return [task.train_lengths, task.test_lengths]


def _perfect(task: Task, batch: TaskBatch) -> torch.Tensor:
    """Outputs built from the targets: a large logit on the target class, the values, or
    logits whose sigmoids are the 0/1 values exactly (in float32)."""
    if task.output_kind == "values":
        if task.value_loss == "bce":
            return 200.0 * (2.0 * batch.targets - 1.0)
        return batch.targets.clone()
    classes = batch.targets.clamp(min=0)  # unscored steps: any class
    return 20.0 * torch.nn.functional.one_hot(classes, task.output_size).to(torch.float32)


def _random(batch: TaskBatch, size: int) -> torch.Tensor:
    return torch.randn(*batch.mask.shape, size, generator=torch.Generator().manual_seed(0))


def test_the_registered_names() -> None:
    assert task_names() == (
        "associative_retrieval",
        "bigram_flip",
        "binary_addition",
        "binary_multiplication",
        "bucket_sort",
        "compute_sqrt",
        "conjugation",
        "copy",
        "cycle_navigation",
        "duplicate_string",
        "dyck_lm",
        "even_pairs",
        "missing_duplicate",
        "modular_arithmetic",
        "modular_arithmetic_brackets",
        "odds_first",
        "parity_check",
        "reversal",
        "reverse_string",
        "rsm_anbn",
        "rsm_copy",
        "rsm_dyck1",
        "rsm_dyck2",
        "rsm_dyck3",
        "rsm_json",
        "rsm_latch",
        "rsm_palindrome",
        "rsm_repeat_copy",
        "solve_equation",
        "stack_manipulation",
        "svo_sov",
        "trask_reversal",
    )


@pytest.mark.parametrize("name", task_names())
def test_batches_keep_the_layout(name: str) -> None:
    task = make_task(name)
    assert task.input_kind in ("tokens", "vectors")
    assert task.output_kind in ("classes", "values")
    for low, high in _ranges(task):
        batch = task.sample_batch(np.random.default_rng(1), BATCH, low, high)
        b, t = batch.mask.shape
        assert b == BATCH and batch.mask.dtype == torch.bool
        assert batch.mask.any(dim=1).all(), "every sequence has a scored step"
        if task.input_kind == "tokens":
            assert batch.inputs.shape == (b, t) and batch.inputs.dtype == torch.int64
            assert 0 <= int(batch.inputs.min()) and int(batch.inputs.max()) < task.input_size
        else:
            assert batch.inputs.shape == (b, t, task.input_size)
            assert batch.inputs.dtype == torch.float32
        if task.output_kind == "classes":
            assert batch.targets.shape == (b, t) and batch.targets.dtype == torch.int64
            scored = batch.targets[batch.mask]
            assert 0 <= int(scored.min()) and int(scored.max()) < task.output_size
            assert torch.all(batch.targets[~batch.mask] == IGNORE_INDEX)
        else:
            assert batch.targets.shape == (b, t, task.output_size)
            assert batch.targets.dtype == torch.float32
            assert not batch.targets[~batch.mask].any()
        if isinstance(task, StackTask):
            assert len(batch.teachers) == b
            assert task.nonterminals.shape[1] == task.input_size
            for row, teacher in enumerate(batch.teachers):
                assert len(teacher.actions) == len(teacher.shift) == int(batch.mask[row].sum()) + 1
        else:
            assert batch.teachers == ()


@pytest.mark.parametrize("name", task_names())
def test_same_seed_same_batch(name: str) -> None:
    task = make_task(name)
    low, high = task.train_lengths
    a, b = (task.sample_batch(np.random.default_rng(7), 4, low, high) for _ in range(2))
    c = task.sample_batch(np.random.default_rng(8), 4, low, high)
    for field in ("inputs", "targets", "mask"):
        assert torch.equal(getattr(a, field), getattr(b, field))
    assert not (a.inputs.shape == c.inputs.shape and torch.equal(a.inputs, c.inputs))


@pytest.mark.parametrize("name", task_names())
def test_perfect_outputs_solve_and_random_ones_do_not(name: str) -> None:
    task = make_task(name)
    for low, high in _ranges(task):
        batch = task.sample_batch(np.random.default_rng(2), BATCH, low, high)
        perfect = task.score(_perfect(task, batch), batch)
        assert set(perfect) == {"accuracy", *_OWN_METRICS.get(name, ())}
        for metric, value in perfect.items():
            assert value == (0.0 if metric in LOWER_IS_BETTER else 1.0), metric
        guessed = task.score(_random(batch, task.output_size), batch)
        assert guessed["accuracy"] < 1.0
        for metric, value in guessed.items():
            assert value != (0.0 if metric in LOWER_IS_BETTER else 1.0), metric


@pytest.mark.parametrize("name", task_names())
def test_bad_arguments_are_named(name: str) -> None:
    task = make_task(name)
    low, high = task.train_lengths
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"rng: expected a numpy\.random\.Generator, got 0"):
        task.sample_batch(0, 2, low, high)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size: expected an int >= 1, got 0"):
        task.sample_batch(rng, 0, low, high)
    with pytest.raises(ValueError, match="min_length: expected an int >= 1, got 0"):
        task.sample_batch(rng, 2, 0, high)
    with pytest.raises(ValueError, match=r"max_length: expected an int >= 1, got 2\.5"):
        task.sample_batch(rng, 2, low, 2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"min_length {high + 1} is greater than max_length"):
        task.sample_batch(rng, 2, high + 1, high)
    too_long = r"batch_size \* max_length: 2 \* 1000000000000 needs .* GiB, more than"
    with pytest.raises(ValueError, match=too_long):
        task.sample_batch(rng, 2, low, 10**12)  # refused at once, not drawn for hours
    batch = task.sample_batch(rng, 2, low, high)
    shape = (*batch.mask.shape, task.output_size)
    with pytest.raises(ValueError, match=r"outputs: expected shape"):
        task.score(torch.zeros(*batch.mask.shape, task.output_size + 1), batch)
    with pytest.raises(ValueError, match="outputs: expected a floating-point tensor"):
        task.score(torch.zeros(shape, dtype=torch.int64), batch)
    with pytest.raises(ValueError, match="outputs: expected a tensor"):
        task.score(np.zeros(shape), batch)  # type: ignore[arg-type]


def _made_batches() -> list[tuple[str, Task, TaskBatch]]:
    """The batches of the tasks' public constructors besides ``sample_batch``."""
    from memrnn.tasks.text_pairs import TextPair, TextPairsTask
    from memrnn.tasks.transduction import sample_batch

    rng = np.random.default_rng(0)
    made: list[tuple[str, Task, TaskBatch]] = []
    for name in TRANSDUCTION_TASKS:
        task = make_task(name)
        pairs = task.sample_pairs(rng, BATCH, 2, 8)
        made.append((f"{name}.make_batch", task, task.make_batch(pairs)))
        made.append((f"{name} sample_batch()", task, sample_batch(task, rng, BATCH, 2, 8)))
    text = TextPairsTask.from_pairs([TextPair(("a", "b"), ("b", "a"), "line 1")])
    made.append(("text_pairs.make_batch", text, text.make_batch([text.encode(text.pairs[0])])))
    reversal = make_task("trask_reversal")
    made.append(("trask_reversal.sample", reversal, reversal.sample(rng, BATCH, 4)))
    symbols = torch.from_numpy(rng.integers(0, 2, size=(BATCH, 3)))
    made.append(("trask_reversal.make_batch", reversal, reversal.make_batch(symbols)))
    return made


@pytest.mark.parametrize("case", _made_batches(), ids=lambda case: case[0])
def test_the_task_scores_every_batch_it_makes(case: tuple[str, Task, TaskBatch]) -> None:
    _, task, batch = case
    assert isinstance(batch, TaskBatch)
    perfect = task.score(_perfect(task, batch), batch)
    assert perfect["accuracy"] == 1.0
    assert all(value == 1.0 for value in perfect.values())  # no error metric among these
    assert task.score(_random(batch, task.output_size), batch)["accuracy"] < 1.0
    assert float(task.loss(_perfect(task, batch), batch)) < 1e-3
