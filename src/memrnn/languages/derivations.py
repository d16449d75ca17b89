"""The shortest derivations of a context-free grammar, which let a sampler abandon a draw as
soon as it must grow past the longest word wanted (:mod:`memrnn.languages.pcfg`,
:mod:`memrnn.languages.itg`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

_INFINITE = 1 << 60


def shortest_lengths(
    rules: Mapping[str, Sequence[Sequence[str | None]]], name: str, unit: str
) -> dict[str, int]:
    """How many terminals the shortest derivation of each nonterminal (a key of ``rules``)
    writes: the least fixed point of "a nonterminal is as short as its shortest right-hand
    side", where a symbol without rules (a terminal, or None) counts one.

    Args:
        rules: each nonterminal's right-hand sides, as sequences of symbols.
        name, unit: for the message, e.g. "productions" and "word".

    Raises:
        ValueError: naming ``name`` and the nonterminals that derive no finite ``unit``.
    """
    best = dict.fromkeys(rules, _INFINITE)
    changed = True
    while changed:
        changed = False
        for head, sides in rules.items():
            for side in sides:
                n = sum(1 if s is None else best.get(s, 1) for s in side)
                if n < best[head]:
                    best[head] = n
                    changed = True
    stuck = sorted(head for head, n in best.items() if n >= _INFINITE)
    if stuck:
        raise ValueError(f"{name}: {stuck} derive no finite {unit}")
    return best
