"""Greedy decoding and scoring of a :class:`~memrnn.tasks.text_pairs.TextPairsTask` with
any model that reads token ids, on the task contract's calling convention: ``model(ids)``
(B, T) gives logits (B, T, output_size), the ones at step t computed from inputs 0 .. t.

Decoding reads ``<s> source |||``, takes the largest logit as the next target token,
feeds it back (``TransductionTask.to_input``) and stops at ``</s>``, as Grefenstette et
al. (2015, section 4) decode. It runs the model over the whole prefix at every step, so it
needs nothing of a model but that convention: the steps after t (padding, tokens not yet
decoded) never change the logits at t. A source of L tokens gets at most
max(2 L, the longest target trained on) tokens before ``</s>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.tasks.base import IGNORE_INDEX
from memrnn.tasks.text_pairs import TextPair, TextPairsTask, join_tokens, split_tokens
from memrnn.validation import check_int

Model = Callable[[Tensor], Tensor]
CHUNK = 64  # sequences run through the model at once


def _device(model: Model) -> torch.device:
    """Where ``model``'s parameters are (the CPU for a model without any)."""
    if isinstance(model, nn.Module):
        for parameter in model.parameters():
            return parameter.device
    return torch.device("cpu")


def _limit(task: TextPairsTask, source: Sequence[int]) -> int:
    """The most output ids (``</s>`` included) decoded for ``source``."""
    return max(2 * len(source), task.longest_target) + 1


@torch.no_grad()
def greedy_decode(
    task: TextPairsTask, model: Model, sources: Sequence[Sequence[int]], chunk: int = CHUNK
) -> list[list[int]]:
    """The output ids greedy decoding gives for each source (source ids), ending in
    ``task.eos`` where the model emitted ``</s>`` before its limit (module docstring).
    Sources run through the model ``chunk`` at a time, in order, so the same sources
    give the same bits."""
    check_int("chunk", chunk, 1)
    device = _device(model)
    out: list[list[int]] = []
    for start in range(0, len(sources), chunk):
        out += _decode_chunk(task, model, sources[start : start + chunk], device)
    return out


def _decode_chunk(
    task: TextPairsTask, model: Model, sources: Sequence[Sequence[int]], device: torch.device
) -> list[list[int]]:
    lengths = [len(s) for s in sources]
    limits = [_limit(task, s) for s in sources]
    inputs = torch.full((len(sources), max(lengths) + 2 + max(limits)), task.input_eos)
    for b, source in enumerate(sources):
        inputs[b, : lengths[b] + 2] = torch.tensor([task.bos, *source, task.sep])
    inputs = inputs.to(device)
    out: list[list[int]] = [[] for _ in sources]
    done = [False] * len(sources)
    for k in range(max(limits)):
        active = [b for b in range(len(sources)) if not done[b] and k < limits[b]]
        if not active:
            break
        # row b reads ||| at step L_b + 1: its k-th output id is the argmax there + k
        width = max(lengths[b] for b in active) + 2 + k
        guesses = model(inputs[:, :width]).argmax(dim=-1).cpu()
        for b in active:
            guess = int(guesses[b, lengths[b] + 1 + k])
            out[b].append(guess)
            if guess == task.eos:
                done[b] = True
            else:
                inputs[b, lengths[b] + 2 + k] = task.source_vocab + guess
    return out


def decode_tokens(
    task: TextPairsTask, model: Model, sources: Sequence[tuple[Sequence[str], str]]
) -> list[tuple[str, ...]]:
    """The target tokens greedy decoding gives for each (source tokens, where) of
    ``read_sources``, ``</s>`` left out.

    Raises:
        UserError: a token outside the model's source vocabulary, named with its line.
    """
    ids = [task.encode_source(tokens, where) for tokens, where in sources]
    return [task.target_tokens(row) for row in greedy_decode(task, model, ids)]


def decode_texts(task: TextPairsTask, model: Model, sources: Sequence[str]) -> list[str]:
    """The targets greedy decoding gives for source texts, each split into the task's
    tokens (``task.tokens``: words or characters) and its target joined the same way.

    Raises:
        UserError: a token outside the model's source vocabulary, named with its source.
    """
    wheres = [f"source {i + 1}" for i in range(len(sources))]
    split = [
        (split_tokens(text, where, "source", task.tokens), where)
        for text, where in zip(sources, wheres, strict=True)
    ]
    return [join_tokens(tokens, task.tokens) for tokens in decode_tokens(task, model, split)]


def score_pairs(task: TextPairsTask, model: Model, pairs: Sequence[TextPair]) -> dict[str, float]:
    """How well greedy decoding reproduces the targets of ``pairs``:

    - ``sequence_accuracy``: the fraction of pairs decoded exactly, ``</s>`` included
      (Grefenstette et al.'s coarse accuracy);
    - ``token_accuracy``: the fraction of target tokens (each target's ``</s>``
      included) that the decoding has at the same position;
    - ``loss``: the cross entropy of the next target token, teacher forced (each step
      reads the gold prefix), averaged over those tokens: what training minimises.

    Raises:
        ValueError: no pairs.
        UserError: a token outside the model's vocabularies, named with its line.
    """
    if not pairs:
        raise ValueError("pairs: expected at least one pair")
    encoded = [task.encode(pair) for pair in pairs]
    decoded = greedy_decode(task, model, [source for source, _ in encoded])
    gold = [[*target, task.eos] for _, target in encoded]
    right = sum(
        sum(p == g for p, g in zip(d, t, strict=False)) for d, t in zip(decoded, gold, strict=True)
    )
    tokens = sum(len(t) for t in gold)
    return {
        "loss": _teacher_forced_loss(task, model, encoded) / tokens,
        "sequence_accuracy": sum(d == t for d, t in zip(decoded, gold, strict=True)) / len(gold),
        "token_accuracy": right / tokens,
    }


@torch.no_grad()
def _teacher_forced_loss(
    task: TextPairsTask, model: Model, encoded: Sequence[tuple[list[int], list[int]]]
) -> float:
    """The summed cross entropy of every target token and ``</s>`` of ``encoded``."""
    device, total = _device(model), 0.0
    for start in range(0, len(encoded), CHUNK):
        batch = task.make_batch(encoded[start : start + CHUNK])
        logits = model(batch.inputs.to(device))
        total += float(
            F.cross_entropy(
                logits.flatten(0, 1),
                batch.targets.to(device).flatten(),
                ignore_index=IGNORE_INDEX,
                reduction="sum",
            )
        )
    return total
