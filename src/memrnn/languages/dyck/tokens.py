"""Dyck-(k,m)'s tokens and their text form.

The open brackets are ids ``0 .. k-1``, the close brackets ``k .. 2k-1`` (``k + i`` closes
``i``) and the end symbol omega is ``2k``. For k <= 4 there is a readable text form: opens
``([{<``, closes ``)]}>``, end ``#``.

>>> from_text("([])#", 2), to_text([0, 1, 3, 2, 4], 2)
([0, 1, 3, 2, 4], '([])#')
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrnn.validation import check_int

TOKEN_DTYPE = np.int32
"""The dtype of sampled and stored token arrays."""

MAX_K = int(np.iinfo(TOKEN_DTYPE).max) // 2
"""The most bracket types whose token ids fit ``TOKEN_DTYPE`` (the largest is the end, 2k)."""

TEXT_OPENS = "([{<"
TEXT_CLOSES = ")]}>"
TEXT_END = "#"


def check_tokens(tokens: Sequence[int] | np.ndarray, k: int, name: str) -> list[int]:
    """``tokens`` as a list of Python ints; ValueError naming ``name`` (and the first bad
    position) unless each is a token id of Dyck-(k, .)."""
    if isinstance(tokens, (str, bytes)):
        raise ValueError(
            f"{name}: expected a sequence of token ids, got the string {tokens!r} "
            "(from_text turns text into ids)"
        )
    array = np.asarray(tokens)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise ValueError(f"{name}: expected a 1-d sequence of int token ids, got {tokens!r}")
    bad = np.flatnonzero((array < 0) | (array > 2 * k))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name}[{i}]: token {array[i]} is not an id of Dyck-({k},m) (0 to {2 * k})"
        )
    return array.tolist()


def _alphabet(k: object) -> str:
    k = check_int("k", k, 1)
    if k > len(TEXT_OPENS):
        raise ValueError(f"k: the text form has {len(TEXT_OPENS)} bracket types, got k={k}")
    return TEXT_OPENS[:k] + TEXT_CLOSES[:k] + TEXT_END


def to_text(tokens: Sequence[int] | np.ndarray, k: int) -> str:
    """Token ids as text, for k <= 4: opens ``([{<``, closes ``)]}>``, end ``#``.

    Raises:
        ValueError: ``k`` is not 1 to 4, or ``tokens`` holds something that is not a token id.
    """
    alphabet = _alphabet(k)
    return "".join(alphabet[t] for t in check_tokens(tokens, k, "tokens"))


def from_text(text: str, k: int) -> list[int]:
    """The token ids of ``text`` written as :func:`to_text` writes them.

    Raises:
        ValueError: ``k`` is not 1 to 4, or ``text`` holds a character that is not a symbol.
    """
    alphabet = _alphabet(k)
    if not isinstance(text, str):
        raise ValueError(f"text: expected a string, got {text!r}")
    for i, char in enumerate(text):
        if char not in alphabet:
            raise ValueError(f"text[{i}]: {char!r} is not one of {alphabet!r}")
    return [alphabet.index(char) for char in text]
