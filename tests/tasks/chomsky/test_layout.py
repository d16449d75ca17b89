"""The layout of the Delétang et al. (2023) tasks: the string, then one blank step per
answer symbol, scored where the answer is; one length per batch; the paper's token
accuracy beside the sequence accuracy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.tasks import IGNORE_INDEX, make_task
from memrnn.tasks.chomsky import ChomskyTask, Strings


class _Echo(ChomskyTask):
    """The string, the termination token 2, then one unscored 0."""

    chomsky_level = "regular"
    alphabet_size = 2
    output_size = 3

    def _strings(self, rng: np.random.Generator, batch_size: int, length: int) -> Strings:
        strings = rng.integers(0, 2, size=(batch_size, length))
        answers = np.concatenate([strings, np.full((batch_size, 1), 2), 0 * strings[:, :1]], 1)
        return Strings.up_to_termination(strings, answers, end=2)


def test_strings_become_a_batch_with_blank_answer_steps() -> None:
    inputs = np.array([[0, 1, 1], [1, 0, 0]])
    outputs = np.array([[1, 2, 0], [0, 1, 2]])
    strings = Strings.up_to_termination(inputs, outputs, end=2)
    assert strings.scored.tolist() == [[True, True, False], [True, True, True]]
    batch = strings.batch(blank=7)
    assert batch.inputs.tolist() == [[0, 1, 1, 7, 7, 7], [1, 0, 0, 7, 7, 7]]
    ignore = IGNORE_INDEX
    assert batch.targets.tolist() == [
        [ignore, ignore, ignore, 1, 2, ignore],
        [ignore, ignore, ignore, 0, 1, 2],
    ]
    assert batch.mask.tolist() == [
        [False, False, False, True, True, False],
        [False, False, False, True, True, True],
    ]
    assert batch.inputs.dtype == batch.targets.dtype == torch.int64


def test_a_class_answer_is_one_scored_step() -> None:
    strings = Strings.all_scored(np.array([[1, 0], [0, 0]]), np.array([1, 0]))
    batch = strings.batch(blank=2)
    assert batch.inputs.tolist() == [[1, 0, 2], [0, 0, 2]]
    assert batch.mask.tolist() == [[False, False, True]] * 2
    assert batch.targets[:, -1].tolist() == [1, 0]


def test_one_length_per_batch_drawn_uniformly_from_the_range() -> None:
    task = _Echo()
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(300):
        batch = task.sample_batch(rng, 3, 3, 7)
        lengths = set((batch.inputs != task.blank).sum(dim=1).tolist())
        assert len(lengths) == 1  # the same length in every row
        seen.extend(lengths)
    counts = np.bincount(seen, minlength=8)[3:]
    assert counts.sum() == 300 and counts.min() > 35  # each of 5 lengths about 60 times


def test_the_batch_is_the_strings_of_the_length_drawn_first() -> None:
    task = make_task("parity_check")
    batch = task.sample_batch(np.random.default_rng(5), 6, 1, 40)
    rng = np.random.default_rng(5)
    length = int(rng.integers(1, 41))
    strings = task.sample_strings(rng, 6, length)
    expected = strings.batch(task.blank)
    for field in ("inputs", "targets", "mask"):
        assert torch.equal(getattr(batch, field), getattr(expected, field))


def test_token_accuracy_is_the_fraction_of_scored_steps_right() -> None:
    task = _Echo()
    batch = task.sample_batch(np.random.default_rng(3), 4, 12, 12)
    assert batch.mask.sum().item() == 4 * 13  # 12 bits and the token per row
    logits = 5.0 * torch.nn.functional.one_hot(batch.targets.clamp(min=0), 3).float()
    assert task.score(logits, batch) == {"accuracy": 1.0, "token_accuracy": 1.0}
    first = int(batch.mask[0].nonzero()[0])
    logits[0, first] = logits[0, first].roll(1)  # one wrong step in row 0
    scored = int(batch.mask.sum())
    assert task.score(logits, batch) == {
        "accuracy": 0.75,
        "token_accuracy": pytest.approx(1 - 1 / scored),
    }
    unscored = int((~batch.mask[1]).nonzero()[-1])
    logits[1, unscored] = torch.tensor([0.0, 0.0, 9.0])  # unscored: no effect
    assert task.score(logits, batch)["accuracy"] == 0.75


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t, r: t.sample_strings(0, 2, 3), r"rng: expected a numpy\.random\.Generator"),
        (lambda t, r: t.sample_strings(r, 0, 3), "batch_size: expected an int >= 1, got 0"),
        (lambda t, r: t.sample_strings(r, 2, 0), "length: expected an int >= 1, got 0"),
        (lambda t, r: t.sample_strings(r, 2, 2.0), r"length: expected an int >= 1, got 2\.0"),
    ],
)
def test_sample_strings_names_a_bad_argument(call: object, message: str) -> None:
    task = make_task("parity_check")
    assert isinstance(task, ChomskyTask) and callable(call)
    with pytest.raises(ValueError, match=message):
        call(task, np.random.default_rng(0))


def test_the_input_ids_are_the_alphabet_and_the_blank() -> None:
    task = make_task("modular_arithmetic", modulus=7)
    assert isinstance(task, ChomskyTask)
    assert (task.alphabet_size, task.blank, task.input_size, task.output_size) == (11, 11, 12, 7)
