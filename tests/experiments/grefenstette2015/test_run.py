"""One run: the curriculum, the training batches within its bound, the long lengths scored
less often, its scores against greedy decoding, and every task trained and traced at the
quick profile's lengths."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from memrnn.experiments.grefenstette2015 import (
    Grefenstette2015,
    Grefenstette2015Config,
    TransductionRun,
)
from memrnn.experiments.grefenstette2015.config import MODELS
from memrnn.models.transducer import greedy_decode
from memrnn.runner.train import train
from memrnn.tasks.transduction import TASKS, sample_batch
from memrnn.tasks.transduction_metrics import coarse, cut_at_eos, fine

TINY = Grefenstette2015Config(
    steps=2, eval_size=5, hidden=8, embedding=4, memory_width=4, max_length=8,
    test_min_length=9, test_max_length=10,
)  # fmt: skip


def test_the_curriculum_grows_when_the_current_lengths_are_learned() -> None:
    torch.manual_seed(0)
    always = dataclasses.replace(TINY, curriculum_start=2, curriculum_increment=3,
                                 curriculum_threshold=0.0)  # fmt: skip
    run = TransductionRun(always, torch.device("cpu"))
    rng = np.random.default_rng(0)
    bounds = [int(run.model.bound)]
    for _ in range(3):
        run.evaluate(rng, TINY.steps)
        bounds.append(int(run.model.bound))
    assert bounds == [2, 5, 8, 8]  # capped at max_length
    assert "bound" in run.model.state_dict()  # so a checkpoint keeps it
    never = dataclasses.replace(always, curriculum_threshold=1.1)
    run = TransductionRun(never, torch.device("cpu"))
    run.evaluate(rng, TINY.steps)
    assert int(run.model.bound) == 2
    off = TransductionRun(dataclasses.replace(TINY, curriculum_start=0), torch.device("cpu"))
    assert int(off.model.bound) == TINY.max_length


def test_scoring_the_long_lengths_less_often_changes_nothing_that_is_trained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    experiment = Grefenstette2015()
    every = dataclasses.replace(TINY, steps=20, eval_every=2, curriculum_start=2,
                                curriculum_increment=1, curriculum_threshold=0.0)  # fmt: skip
    sparse = dataclasses.replace(every, score_every=6)
    scores: list[tuple[int, int, str]] = []  # each score's lengths and its generator's state
    score = TransductionRun.score

    def spy(run: TransductionRun, rng: np.random.Generator, lo: int, hi: int) -> tuple:
        scores.append((lo, hi, repr(rng.bit_generator.state)))
        return score(run, rng, lo, hi)

    monkeypatch.setattr(TransductionRun, "score", spy)
    whole = train(experiment, every)
    whole_scores, scores[:] = scores[:], []
    scored = train(experiment, sparse)
    # the light evaluations (steps 2, 4, 8, 10, 14, 16) leave out two scores each, and
    # every score left is drawn as the whole run draws it
    assert len(scores) == len(whole_scores) - 2 * 6
    remaining = iter(whole_scores)
    assert all(s in remaining for s in scores)
    full = {"train_coarse", "train_fine", "test_coarse", "test_fine"}
    steps_of = {name: sorted(s for s, n, _ in scored.history if n == name) for name in full}
    assert all(steps == [6, 12, 18, 20] for steps in steps_of.values())  # and the last
    # every value the sparse run has, the whole one has too, and nothing else differs
    assert set(scored.history) <= set(whole.history)
    assert {(s, n) for s, n, _ in whole.history} - {(s, n) for s, n, _ in scored.history} == {
        (s, n) for s in (2, 4, 8, 10, 14, 16) for n in full
    }
    assert scored.metrics == whole.metrics
    # the curriculum grew at light evaluations too: 2 at the first, 8 from the seventh
    assert [v for s, n, v in scored.history if n == "curriculum"][:7] == [2, 3, 4, 5, 6, 7, 8]


def test_training_batches_respect_the_bound() -> None:
    run = TransductionRun(dataclasses.replace(TINY, curriculum_start=3), torch.device("cpu"))
    rng = np.random.default_rng(1)
    for _ in range(20):
        assert int(run.training_batch(rng).source_lengths.max()) <= 3


@pytest.mark.parametrize("task", TASKS)
def test_every_task_trains_and_traces_at_the_quick_lengths(task: str) -> None:
    # The quick lengths on every task: the curriculum starts no shorter than the task's
    # shortest source (the ITG grammars have none below 5 words), and the trace is drawn
    # at a test length the task has (bigram flipping: even lengths only; 33 is odd).
    quick = dataclasses.replace(TINY, task=task, model="stack", max_length=32,
                                test_min_length=33, test_max_length=64)  # fmt: skip
    run = TransductionRun(quick, torch.device("cpu"))
    assert int(run.model.bound) >= run.task.shortest_source
    assert torch.isfinite(run.loss(run.training_batch(np.random.default_rng(2))))
    trace = run.artifacts(np.random.default_rng(3))
    assert 33 <= trace["source_length"] <= 34


def _greedy_scores(run: TransductionRun, rng: np.random.Generator, lo: int, hi: int) -> tuple:
    """The scores as the paper defines them: decode each source greedily, feeding every
    prediction back, and compare the output up to its first </s> with gold."""
    batch = sample_batch(run.task, rng, run.config.eval_size, lo, hi)
    steps = int(batch.target_lengths.max()) + 2
    out = greedy_decode(run.network, batch.inputs, batch.source_lengths + 2, steps,
                        run.task.to_input)  # fmt: skip
    predicted, gold = cut_at_eos(out, run.task.eos), batch.gold()
    return coarse(predicted, gold), fine(predicted, gold)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("task", ["copy", "reversal", "bigram_flip"])
def test_the_scores_are_those_of_greedy_decoding(model: str, task: str) -> None:
    # Two source symbols and 30 steps of training, so that the model gets some outputs
    # wholly right and some partly; float64, so that no argmax is a near tie that
    # rounding could flip.
    config = dataclasses.replace(TINY, task=task, model=model, vocab_size=2, eval_size=40,
                                 curriculum_start=0, max_length=4)  # fmt: skip
    torch.manual_seed(3)
    run = TransductionRun(config, torch.device("cpu"))
    run.model.double()
    optimizer = torch.optim.Adam(run.model.parameters(), 0.03)
    rng = np.random.default_rng(0)
    for _ in range(30):
        optimizer.zero_grad()
        run.loss(run.training_batch(rng)).backward()
        optimizer.step()
    run.model.eval()
    lo = run.task.shortest_source
    seen: list[float] = []
    with torch.no_grad():
        for seed, hi in enumerate((lo, lo + 2, lo + 6)):
            ours = run.score(np.random.default_rng(seed), lo, hi)
            assert ours == _greedy_scores(run, np.random.default_rng(seed), lo, hi)
            seen.extend(ours)
    assert any(0 < s < 1 for s in seen)  # neither all right nor all wrong
