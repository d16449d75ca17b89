"""Figure 2: the small CRJ's states after stacks of a, b and S."""

from __future__ import annotations

import numpy as np

from memrnn.experiments.paassen2021.figures import (
    figure2,
    figure2_finding,
    figure2_separability,
    figure2_states,
)


def test_figure2_states_are_the_last_states_of_random_words() -> None:
    states, last = figure2_states(seed=1, words=20)
    assert states.shape == (20, 5) and last.shape == (20,)
    assert set(np.unique(last)) <= {0, 1, 2}
    np.testing.assert_array_equal(figure2_states(seed=1, words=20)[0], states)  # seeded


def test_figure2_finding_reports_the_separability() -> None:
    accuracy = figure2_separability()
    assert 0.0 < accuracy <= 1.0
    line = figure2_finding()
    assert line.startswith(
        "Figure 2: a linear SVM tells the top symbol from the 5-neuron CRJ's state with "
        f"training accuracy {accuracy:.2f}"
    )
    assert line.endswith(".")


def test_figure2_has_one_scatter_per_top_symbol() -> None:
    (axes,) = figure2().axes
    assert [text.get_text() for text in axes.get_legend().get_texts()] == [
        "top = a",
        "top = b",
        "top = S",
    ]
