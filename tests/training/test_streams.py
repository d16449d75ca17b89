"""A run's random streams: each a function of the seed alone, and apart from each other."""

import numpy as np

from memrnn.training.streams import after_rng, data_rng, eval_rng


def draws(rng: np.random.Generator) -> list[int]:
    return rng.integers(0, 2**62, size=4).tolist()


def test_each_stream_is_a_function_of_the_seed_alone() -> None:
    assert draws(data_rng(7)) == draws(data_rng(7))
    assert draws(eval_rng(7)(400)) == draws(eval_rng(7)(400))
    assert draws(after_rng(7)) == draws(after_rng(7))


def test_streams_differ_by_seed_by_purpose_and_by_evaluation_step() -> None:
    seen = [
        draws(data_rng(7)),
        draws(data_rng(8)),
        draws(eval_rng(7)(0)),
        draws(eval_rng(7)(200)),
        draws(eval_rng(8)(0)),
        draws(after_rng(7)),
    ]
    assert len({tuple(d) for d in seen}) == len(seen)


def test_the_streams_keep_the_labels_stored_runs_were_made_with() -> None:
    """Changing a label would change every stored run's batches: (seed, 1) trains,
    (seed, 2, step) evaluates, (seed, 3) follows training."""
    assert draws(data_rng(3)) == draws(np.random.default_rng([3, 1]))
    assert draws(eval_rng(3)(600)) == draws(np.random.default_rng([3, 2, 600]))
    assert draws(after_rng(3)) == draws(np.random.default_rng([3, 3]))
