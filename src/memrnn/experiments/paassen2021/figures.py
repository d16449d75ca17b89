"""Figure 2 of Paassen et al. (2021): the states of the small CRJ of their Figure 1 after
stacks up to length 10, projected by PCA, which the top symbol of the stack separates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memrnn.reservoir import crj_input_signs, crj_reservoir

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def figure2_states(seed: int = 0, words: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """States of the paper's Figure 1 CRJ (5 neurons, jump length 2, input weight 1,
    cycle weight 0.5; the jump weight is not given, 0.5 here) after random words over
    {a, b, S} of length 1 to 10, and each word's last symbol (0, 1, 2)."""
    reservoir = crj_reservoir(
        3, 5, cycle_weight=0.5, jump_weight=0.5, jump_length=2, input_weight=1.0
    )
    rng = np.random.default_rng(seed)
    states, last = [], []
    for _ in range(words):
        symbols = rng.integers(0, 3, int(rng.integers(1, 11)))
        states.append(reservoir.states(np.eye(3)[symbols])[-1])
        last.append(int(symbols[-1]))
    return np.array(states), np.array(last)


def figure2_separability() -> float:
    """The training accuracy of a linear SVM telling the top symbol from the state."""
    from sklearn.svm import LinearSVC

    states, last = figure2_states()
    return float(LinearSVC(C=100.0, max_iter=100_000).fit(states, last).score(states, last))


def figure2_finding() -> str:
    """How well the figure's states separate, and why where they do not: the CRJ's input
    signs, taken from the digits of pi, may give two symbols the same input weights."""
    accuracy = figure2_separability()
    signs = crj_input_signs(3, 5)
    same = [f"{'abS'[i]}, {'abS'[j]}" for i in range(3) for j in range(i + 1, 3)
            if np.array_equal(signs[:, i], signs[:, j])]  # fmt: skip
    return (
        f"Figure 2: a linear SVM tells the top symbol from the 5-neuron CRJ's state with "
        f"training accuracy {accuracy:.2f}"
        + (
            f"; with our pi-digit sign convention (digit i*n+j gives U[i, j]) the input "
            f"weights of {'; '.join(same)} coincide, so the reservoir cannot tell them "
            "apart (the paper's figure separates all three; its digit order is not given)"
            if same
            else ""
        )
        + "."
    )


def figure2() -> Figure:
    """The paper's Figure 2: a 2-D PCA of the states of ``figure2_states``, coloured by
    the word's last symbol (the top of the stack)."""
    from matplotlib.figure import Figure
    from sklearn.decomposition import PCA

    states, last = figure2_states()
    points = PCA(n_components=2).fit_transform(states)
    figure = Figure(figsize=(5, 4))
    axes = figure.add_subplot()
    for index, (symbol, marker) in enumerate(zip("abS", "o^s", strict=True)):
        chosen = last == index
        xs, ys = points[chosen].T
        axes.scatter(xs, ys, marker=marker, s=14, label=f"top = {symbol}")
    axes.set_xlabel("principal component 1")
    axes.set_ylabel("principal component 2")
    axes.set_title("CRJ states (5 neurons) of stacks up to length 10")
    axes.legend()
    return figure
