"""The two transduction grammars of Grefenstette et al. (2015), *Learning to Transduce with
Unbounded Memory*, Appendix C, Table 1, as inversion transduction grammars
(:mod:`memrnn.languages.itg`).

A terminal class (``ST``, ``M``, ...) derives one of its n word pairs, each with
probability 1/n; the words carry the pair's number (class ``ST`` has the pairs
si0 | so0, ..., si{n-1} | so{n-1}). The conjugation grammar is supercritical: 60% of its
derivations are infinite, which the sampler of :mod:`memrnn.languages.itg` survives.

Their rules (A is the root; probabilities first):

SVO -> SOV (``SVO_TO_SOV``, built by ``svo_to_sov``):

=========  ===================================================
1          A -> S1 VT2 O3 | S1 O3 VT2
r          S -> S1 S2 | S1 S2
r          S -> S1 rpi S2 VT3 | S1 rpo S2 VT3
1 - 2r     S -> ST1 | ST1
r          O -> O1 O2 | O1 O2
r          O -> S1 rpi S2 VT3 | S1 rpo S2 VT3
1 - 2r     O -> OT1 | OT1
1/n each   ST -> si_i | so_i;  OT -> oi_i | oo_i;  VT -> vi_i | vo_i
=========  ===================================================

with r = 1/5 in the table. The main clause's verb moves after its object; relative clauses
(``rpi``, "who/which") are verb-final on both sides.

Genderless -> gendered (``GENDERLESS_TO_GENDERED``, built by ``genderless_to_gendered``):

=========  ===================================================
1          A -> B1 | B1
b_or       B -> B1 or B2 | B1 oder B2
b_and      B -> S1 and S2 | S1 und S2
b_v        B -> B1 V2 | B1 V2
v_wb       V -> W1 B2 | W1 B2
v_w        V -> W1 | W1
1/6 each   S -> the M1 | der M1;  the F1 | die F1;  the N1 | das N1;
           a M1 | ein M1;  a F1 | eine F1;  a N1 | ein N1
1/n each   W -> we_i | wg_i;  M -> me_i | mg_i;  F -> fe_i | fg_i;  N -> ne_i | ng_i
=========  ===================================================

with (b_or, b_and, b_v) = (1/4, 1/4, 1/2) and (v_wb, v_w) = (3/4, 1/4) in the table, which
writes the third B rule ``B1 V1 | B1 V1``: two constituents cannot share an index, so it is
read as ``B1 V2``. The word order is kept; each article takes the gender of its noun.

Vocabulary: the table gives each word pair 1/33 (SVO) and 1/25 (conjugation), that is 33
and 25 pairs per class (100 source words for SVO, 104 for conjugation), while the paper's
text (section 4 and Appendix C) balances the classes so that the vocabulary totals about
128 words, as in its other tasks. The defaults follow the text and so deviate from the
table: 42 pairs per class for SVO (127 source and 127 target words with ``rpi``/``rpo``)
and 32 for conjugation (132 source words with the, a, and, or; 135 target words with der,
die, das, ein, eine, und, oder). ``words_per_class=33`` or ``25`` gives the table's. The
class size changes the vocabulary only, not the lengths: a class derives one word whatever
its size, and a draw takes the same random numbers, so a seed gives the same lengths.

Lengths. The paper tuned the recursive rules by hand so that source lengths 8-128 are
roughly uniform; the table's numbers do not give that. The rates below are the fraction of
single draws whose source length falls in training's [8, 64] and in testing's [65, 128],
measured over 100 000 draws (seed 0), with the share of draws in each eighth of 8-128:

=======================  =======  ========  ===============================================
grammar                  [8, 64]  [65,128]  8-21, 22-35, ..., 113-128 (share of draws)
=======================  =======  ========  ===============================================
SVO, table               0.358    0.0147    .253 .065 .026 .013 .008 .004 .002 .001
SVO, critical            0.360    0.0569    .216 .075 .041 .028 .021 .015 .012 .009
conjugation, table       0.113    0.0021    .083 .020 .007 .003 .001 .0005 .0002 0
conjugation, critical    0.324    0.0533    .190 .068 .039 .027 .019 .015 .011 .009
=======================  =======  ========  ===============================================

The table's grammars are subcritical (SVO: 0.8 recursive constituents per S or O) or, for
conjugation, supercritical (1.375 B per B, so the finite derivations are those of a
subcritical process), and either way long sources are exponentially rare: none of 100 000
conjugation draws had 113 to 128 words. The "critical" rows, r = 1/4 for SVO and
(b_or, b_and, b_v) = (0.2, 0.4, 0.4), (v_wb, v_w) = (0.5, 0.5) for conjugation, make each
grammar critical (one recursive constituent per constituent on average), which makes
the test range about 4 and 25 times likelier and its length profile flatter; lengths in a
branching process still fall off as n^(-3/2), so no setting of these probabilities is
uniform. The constants keep the table's rule probabilities; pass ``recursion=1/4`` or
``b=(0.2, 0.4, 0.4), v=(0.5, 0.5)`` for the critical ones.

>>> import numpy as np
>>> from memrnn.languages.itg import sample_pair
>>> source, target = sample_pair(svo_to_sov(3), np.random.default_rng(0), 4, 8)
>>> source
['si2', 'si2', 'si2', 'rpi', 'si0', 'vi2', 'vi0', 'oi0']
>>> target
['so2', 'so2', 'so2', 'rpo', 'so0', 'vo2', 'oo0', 'vo0']
"""

from __future__ import annotations

from memrnn.languages.itg import ITG, ITGRule
from memrnn.validation import check_distribution, check_float, check_int


def _class(source: str, target: str, n: int) -> tuple[tuple[str, str], ...]:
    return tuple((f"{source}{i}", f"{target}{i}") for i in range(n))


def svo_to_sov(words_per_class: int = 42, recursion: float = 1 / 5) -> ITG:
    """The SVO -> SOV grammar (module docstring).

    Args:
        words_per_class: word pairs in each of ST, OT and VT (the table's 1/33 is 33).
        recursion: the probability of each of the two recursive rules of S and of O (the
            table's 1/5); the one-word rule gets 1 - 2 * recursion.
    """
    check_int("words_per_class", words_per_class, 1)
    check_float("recursion", recursion, above=0.0, below=0.5)
    r = ITGRule.parse
    return ITG(
        "A",
        {
            "A": (r("S1 VT2 O3 | S1 O3 VT2", 1.0),),
            "S": (
                r("S1 S2 | S1 S2", recursion),
                r("S1 rpi S2 VT3 | S1 rpo S2 VT3", recursion),
                r("ST1 | ST1", 1.0 - 2 * recursion),
            ),
            "O": (
                r("O1 O2 | O1 O2", recursion),
                r("S1 rpi S2 VT3 | S1 rpo S2 VT3", recursion),
                r("OT1 | OT1", 1.0 - 2 * recursion),
            ),
        },
        {
            "ST": _class("si", "so", words_per_class),
            "OT": _class("oi", "oo", words_per_class),
            "VT": _class("vi", "vo", words_per_class),
        },
    )


def genderless_to_gendered(
    words_per_class: int = 32,
    b: tuple[float, float, float] = (1 / 4, 1 / 4, 1 / 2),
    v: tuple[float, float] = (3 / 4, 1 / 4),
) -> ITG:
    """The genderless -> gendered conjugation grammar (module docstring).

    Args:
        words_per_class: word pairs in each of W, M, F and N (the table's 1/25 is 25).
        b: the probabilities of B's rules "or", "and" and "B V".
        v: the probabilities of V's rules "W B" and "W".
    """
    check_int("words_per_class", words_per_class, 1)
    check_distribution("b", b, 3)
    check_distribution("v", v, 2)
    r = ITGRule.parse
    articles = [
        ("the", "der", "M"),
        ("the", "die", "F"),
        ("the", "das", "N"),
        ("a", "ein", "M"),
        ("a", "eine", "F"),
        ("a", "ein", "N"),
    ]
    return ITG(
        "A",
        {
            "A": (r("B1 | B1", 1.0),),
            "B": (
                r("B1 or B2 | B1 oder B2", b[0]),
                r("S1 and S2 | S1 und S2", b[1]),
                r("B1 V2 | B1 V2", b[2]),  # the table's "B1 V1" reuses index 1: a typo
            ),
            "V": (r("W1 B2 | W1 B2", v[0]), r("W1 | W1", v[1])),
            "S": tuple(r(f"{e} {c}1 | {g} {c}1", 1 / 6) for e, g, c in articles),
        },
        {
            "W": _class("we", "wg", words_per_class),
            "M": _class("me", "mg", words_per_class),
            "F": _class("fe", "fg", words_per_class),
            "N": _class("ne", "ng", words_per_class),
        },
    )


SVO_TO_SOV = svo_to_sov()
"""The SVO -> SOV grammar with the table's probabilities."""

GENDERLESS_TO_GENDERED = genderless_to_gendered()
"""The genderless -> gendered grammar with the table's probabilities."""
