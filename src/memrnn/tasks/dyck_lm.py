"""Dyck-(k,m) language modelling (Hewitt et al. 2020, section 8 and Appendix H): batches,
losses, and the bracket-closing metric.

Bracket closing (Appendix H.4): at every close bracket of a test string, the model's
probability of the correct close bracket divided by its probability of any close bracket
(Eq. H.4); the model is confident there when that ratio exceeds 0.8. p_l is the fraction
of confident closes among those separated from their open bracket by l tokens (l = 0 for
"()"), and the metric is the mean of p_l over the distances l that occur.

The authors' code (dyckkm-learning, reporter.py) scores more positions than the text
describes: every prefix with an open bracket, whatever token follows, at the distance from
the innermost open bracket. ``bracket_closing(..., every_open_prefix=True)`` scores those.
Every close bracket is such a prefix, so a model confident at all of them is confident at
every close bracket too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from memrnn.validation import check_int

PAD = -1  # padding id in token batches; ignored by the loss
CONFIDENT = 0.8


def pad(strings: Sequence[np.ndarray]) -> Tensor:
    """(B, T) int64 token ids, shorter strings padded with PAD at the end."""
    width = max(len(s) for s in strings)
    out = np.full((len(strings), width), PAD, dtype=np.int64)
    for row, s in enumerate(strings):
        out[row, : len(s)] = s
    return torch.from_numpy(out)


def batches(
    strings: Sequence[np.ndarray], size: int, rng: np.random.Generator | None = None
) -> Iterator[Tensor]:
    """Padded batches of ``size`` strings, in a random order when ``rng`` is given."""
    order = rng.permutation(len(strings)) if rng is not None else np.arange(len(strings))
    for start in range(0, len(order), size):
        yield pad([strings[i] for i in order[start : start + size]])


def loss(model: nn.Module, tokens: Tensor) -> Tensor:
    """Mean cross entropy per (non-padding) token."""
    logits = model(tokens)
    return nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), tokens.reshape(-1), ignore_index=PAD
    )


@torch.no_grad()
def batch_mean_loss(model: nn.Module, strings: Sequence[np.ndarray], batch: int) -> float:
    """The mean over consecutive batches of ``batch`` strings of each batch's mean cross
    entropy per token: the development loss on which the authors' code keeps the best model
    and halves the learning rate (so a short batch weighs as much as a long one)."""
    check_int("batch", batch, 1)
    if not len(strings):
        raise ValueError("strings: expected at least one string")
    losses = [float(loss(model, tokens)) for tokens in batches(strings, batch)]
    return float(np.mean(losses))


@torch.no_grad()
def perplexity(model: nn.Module, strings: Sequence[np.ndarray], batch: int = 100) -> float:
    """exp of the mean cross entropy per token over ``strings``."""
    total, count = 0.0, 0
    for tokens in batches(strings, batch):
        logits = model(tokens)
        nll = nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), tokens.reshape(-1), ignore_index=PAD,
            reduction="sum",
        )  # fmt: skip
        total += float(nll)
        count += int((tokens != PAD).sum())
    return float(np.exp(total / count))


def close_distances(
    string: np.ndarray, k: int, every_open_prefix: bool = False
) -> list[tuple[int, int, int]]:
    """(position, bracket, distance) of every close bracket in ``string``: the distance
    is the number of tokens between it and its open bracket. With ``every_open_prefix``,
    every position t whose prefix (tokens < t) has an open bracket, with the innermost
    one and the tokens between it and position t."""
    stack: list[tuple[int, int]] = []
    closes = []
    for t, token in enumerate(string.tolist()):
        if stack and every_open_prefix:
            opened, bracket = stack[-1]
            closes.append((t, bracket, t - opened - 1))
        if token < k:
            stack.append((t, token))
        elif token < 2 * k:
            if not stack or stack[-1][1] != token - k:
                raise ValueError(f"string: close bracket {token} at {t} does not match")
            opened, bracket = stack.pop()
            if not every_open_prefix:
                closes.append((t, bracket, t - opened - 1))
    return closes


@dataclass(frozen=True)
class ClosingScores:
    """The bracket-closing metric.

    Attributes:
        by_distance: {l: (confident closes, closes)} at each distance l.
        mean: mean over l of p_l = confident / closes.
    """

    by_distance: dict[int, tuple[int, int]]
    mean: float

    def curve(self) -> tuple[np.ndarray, np.ndarray]:
        """Distances l and p_l, sorted by l."""
        distances = np.array(sorted(self.by_distance))
        confident = [self.by_distance[d][0] / self.by_distance[d][1] for d in distances]
        return distances, np.array(confident)


@torch.no_grad()
def bracket_closing(
    model: nn.Module,
    strings: Sequence[np.ndarray],
    k: int,
    batch: int = 100,
    *,
    every_open_prefix: bool = False,
) -> ClosingScores:
    """The bracket-closing metric of ``model`` on ``strings`` (Appendix H.4), at every close
    bracket, or with ``every_open_prefix`` at every prefix with an open bracket (the
    authors' code)."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for start in range(0, len(strings), batch):
        chunk = strings[start : start + batch]
        probs = torch.softmax(model(pad(chunk)), dim=-1).double().numpy()
        _count_closes(counts, probs, chunk, k, every_open_prefix)
    return _closing_scores(counts)


def closing_scores(
    probs: np.ndarray, strings: Sequence[np.ndarray], k: int, *, every_open_prefix: bool = False
) -> ClosingScores:
    """The bracket-closing metric of next-token probabilities ``probs`` (B, T, V), row b's
    step t the distribution of token t of ``strings[b]``."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    _count_closes(counts, probs, strings, k, every_open_prefix)
    return _closing_scores(counts)


def _count_closes(
    counts: dict[int, list[int]],
    probs: np.ndarray,
    strings: Sequence[np.ndarray],
    k: int,
    every_open_prefix: bool,
) -> None:
    """Add each scored position's (confident, 1) to ``counts`` at its distance."""
    for row, string in enumerate(strings):
        for t, bracket, distance in close_distances(np.asarray(string), k, every_open_prefix):
            closes = probs[row, t, k : 2 * k]
            ratio = closes[bracket] / closes.sum()
            counts[distance][0] += int(ratio > CONFIDENT)
            counts[distance][1] += 1


def _closing_scores(counts: dict[int, list[int]]) -> ClosingScores:
    by_distance = {d: (c[0], c[1]) for d, c in sorted(counts.items())}
    ps = [c / n for c, n in by_distance.values()]
    return ClosingScores(by_distance, float(np.mean(ps)) if ps else float("nan"))
