"""Your own data: pairs of token sequences read from a text file, as a transduction task.

The file is UTF-8 text, one pair a line, ``source<TAB>target``. Its tokens are words
separated by single spaces (``tokens="words"``, the default)::

    a b c	c b a
    x y	y x

or each side's characters (``tokens="chars"``, spaces included)::

    abc	cba
    xy	yx

A file read as words where no line has a space (each side one token, as ``abc	cba`` is)
gets a warning naming ``tokens="chars"``, which is what such a file usually means.

A source has at least one token; a target may have none (the model then only learns to
emit ``</s>``); each side has at most 10,000 tokens. Blank lines may end the file,
nowhere else; a line may end in ``\\r\\n``. A file is at most 256 MiB of text, without
NUL characters.
Every mistake is a UserError naming the file and the line.

:class:`TextPairsTask` lays the pairs out as the transduction tasks of Grefenstette et
al. (2015) do (:mod:`memrnn.tasks.transduction`): input ``<s> source ||| target </s>``,
the model emitting each target token after reading the one before it, then ``</s>``. Its
vocabularies are the file's tokens, sorted (so the same file gives the same ids), source
and target apart. It samples training batches from the file's pairs, and decodes and
scores new sources greedily with any model that reads token ids
(:mod:`memrnn.tasks.text_pairs_decoding`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np

from memrnn.errors import UserError
from memrnn.tasks.transduction import Pair, TransductionTask
from memrnn.validation import check_int, check_int_range

Tokens = tuple[str, ...]
Tokenisation = Literal["words", "chars"]
TOKENISATIONS: tuple[Tokenisation, ...] = ("words", "chars")


def check_tokens(tokens: object) -> Tokenisation:
    """``tokens`` if it is one of ``TOKENISATIONS``; a UserError naming it otherwise."""
    if tokens not in TOKENISATIONS:
        raise UserError(f"tokens: expected one of {', '.join(TOKENISATIONS)}, got {tokens!r}")
    return tokens


def join_tokens(tokens: Sequence[str], tokenisation: Tokenisation) -> str:
    """The text of ``tokens``: words joined by spaces, characters joined as they are."""
    return (" " if tokenisation == "words" else "").join(tokens)


class TextPair(NamedTuple):
    """One line of a pairs file: its source and target tokens and where it was read."""

    source: Tokens
    target: Tokens
    where: str  # "FILE, line N", for messages


MAX_BYTES = 256 * 2**20  # a larger file (or an endless one, /dev/zero) is refused
MAX_TOKENS = 10_000  # the most tokens of one side of a line
# first lines that name the columns rather than pair tokens
HEADERS = {("source", "target"), ("input", "output"), ("src", "tgt")}


def _lines(path: str | os.PathLike[str], what: str) -> list[tuple[int, str]]:
    """The numbered lines of the UTF-8 file ``path`` without their line ends and without
    the blank lines that end it; a UserError for an unreadable, empty, non-UTF-8 or
    larger than 256 MiB file, a NUL character, or a blank line before the end."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as error:
        raise UserError(f"{path}: cannot read the {what} ({error.strerror or error})") from None
    if len(data) > MAX_BYTES:
        raise UserError(
            f"{path}: larger than {MAX_BYTES // 2**20} MiB; expected {what}, one a line"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        number = data[: error.start].count(b"\n") + 1
        raise UserError(
            f"{path}, line {number}: not UTF-8 text (byte {data[error.start]:#04x}); "
            f"save the {what} as UTF-8"
        ) from None
    if "\0" in text:
        number = text[: text.index("\0")].count("\n") + 1
        raise UserError(f"{path}, line {number}: a NUL character; expected text")
    lines = [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise UserError(f"{path}: an empty file; expected {what}, one a line")
    numbered = list(enumerate(lines, start=1))
    for number, line in numbered:
        if not line.strip():
            raise UserError(f"{path}, line {number}: a blank line (allowed only at the end)")
    return numbered


def split_tokens(text: str, where: str, side: str, tokens: Tokenisation = "words") -> Tokens:
    """The tokens of one side of a line: its space-separated words, or its characters;
    at most ``MAX_TOKENS``."""
    if not text:
        return ()
    words = tuple(text) if tokens == "chars" else tuple(text.split(" "))
    if len(words) > MAX_TOKENS:
        raise UserError(f"{where}: {len(words)} tokens in the {side}; at most {MAX_TOKENS}")
    if tokens == "chars":
        return words
    if "" in words:
        raise UserError(
            f"{where}: an empty token in the {side} (two spaces in a row, or a space at its "
            "start or end); tokens are separated by single spaces"
        )
    return words


def read_pairs(path: str | os.PathLike[str], tokens: Tokenisation = "words") -> list[TextPair]:
    """The pairs of the file ``path`` (module docstring), split into ``tokens``: words
    or chars. Read as words, a file with no space in any line warns (module docstring).

    Raises:
        UserError: (a ValueError) naming the file and line: a line with no tab or with two,
            an empty source, an empty token, a blank line before the end, a file that is
            empty, not UTF-8 or cannot be read.
    """
    check_tokens(tokens)
    pairs = []
    lines = _lines(path, "pairs")
    for number, line in lines:
        where = f"{path}, line {number}"
        tabs = line.count("\t")
        if tabs != 1:
            problem = "no tab" if tabs == 0 else f"{tabs} tabs"
            raise UserError(f"{where}: {problem}; expected source<TAB>target")
        source, target = line.split("\t")
        if not source:
            raise UserError(f"{where}: an empty source; a source needs at least one token")
        pairs.append(
            TextPair(
                split_tokens(source, where, "source", tokens),
                split_tokens(target, where, "target", tokens),
                where,
            )
        )
    if tuple(lines[0][1].lower().split("\t")) in HEADERS:
        warnings.warn(
            f"{path}, line 1: {lines[0][1]!r} looks like a header, and is read as a pair; "
            "remove it if it is one",
            UserWarning,
            stacklevel=2,
        )
    if tokens == "words" and _unspaced(pairs, [line for _, line in lines]):
        warnings.warn(
            f"{path}: no line has a space, so each side of a line is one token; for "
            "character tokens read it with tokens='chars' (memrnn fit --tokens chars)",
            UserWarning,
            stacklevel=2,
        )
    return pairs


def _unspaced(pairs: Sequence[TextPair], lines: Sequence[str]) -> bool:
    """Whether words were read from lines with no space at all, some side a word of
    several characters: the file's sides are most likely strings of character tokens."""
    return not any(" " in line for line in lines) and any(
        len(word) > 1 for pair in pairs for word in (*pair.source, *pair.target)
    )


def read_sources(
    path: str | os.PathLike[str], tokens: Tokenisation = "words"
) -> list[tuple[Tokens, str]]:
    """The sources of the file ``path``, one a line, split into ``tokens`` (words
    separated by single spaces, or chars), each with where it was read ("FILE, line N").

    Raises:
        UserError: naming the file and line: a tab (a pairs file given where sources are
            expected), an empty token, a blank line before the end, a file that is empty,
            not UTF-8 or cannot be read.
    """
    sources = []
    for number, line in _lines(path, "sources"):
        where = f"{path}, line {number}"
        if "\t" in line:
            raise UserError(f"{where}: a tab; expected one source a line, without its target")
        sources.append((split_tokens(line, where, "source", tokens), where))
    return sources


def _check_words(name: str, words: object, tokens: Tokenisation) -> Tokens:
    """A vocabulary as the task keeps it: distinct tokens, sorted; words without spaces,
    or single characters (a space among them)."""
    if not isinstance(words, (list, tuple)) or not all(isinstance(w, str) for w in words):
        raise ValueError(f"{name}: expected a list of strings")
    if tokens == "chars":
        ok = all(len(w) == 1 and w not in "\t\n\r" for w in words)
        what = "single characters other than tabs and newlines"
    else:
        ok = all(w and not any(c in w for c in " \t\n\r") for w in words)
        what = "tokens without spaces, tabs or newlines"
    if not ok or list(words) != sorted(set(words)):
        raise ValueError(f"{name}: expected distinct sorted {what}")
    return tuple(words)


class TextPairsTask(TransductionTask):
    """Pairs of token sequences of your own, as a transduction task.

    The layout, special ids and metrics are those of
    :class:`~memrnn.tasks.transduction.TransductionTask` (``make_batch``, ``to_input``,
    ``bos``, ``sep``, ``eos``, ``coarse`` and ``fine``); only the vocabularies and the
    pairs come from the file. A length is a source length; ``train_lengths`` and
    ``test_lengths`` are both the shortest and longest source of the pairs.

    Args:
        source_words, target_words: the vocabularies, distinct tokens in sorted order;
            token i of each has id i.
        source_lengths: the (shortest, longest) source the model was trained on.
        longest_target: the longest target it was trained on (bounds greedy decoding).
        pairs: the pairs to sample from; none for a task that only decodes (as a saved
            model's is).
        tokens: what a token is: ``"words"`` (separated by spaces) or ``"chars"``; new
            sources are split, and decoded targets joined, the same way.

    Raises:
        ValueError: a vocabulary that is not distinct sorted tokens, bad lengths.
        UserError: a pair with a token outside the vocabularies, naming it and its line.
    """

    def __init__(
        self,
        source_words: Sequence[str],
        target_words: Sequence[str],
        source_lengths: Sequence[int],
        longest_target: int,
        pairs: Sequence[TextPair] = (),
        tokens: Tokenisation = "words",
    ) -> None:
        # TransductionTask's __init__ takes its vocabularies from a task name; these come
        # from a file, so the same attributes are set here.
        self.name, self.grammar = "text_pairs", None
        self.tokens = check_tokens(tokens)
        self.source_words = _check_words("source_words", source_words, self.tokens)
        self.target_words = _check_words("target_words", target_words, self.tokens)
        if not self.source_words:
            raise ValueError("source_words: expected at least one token")
        if not isinstance(source_lengths, Sequence) or len(source_lengths) != 2:
            raise ValueError(
                f"source_lengths: expected (shortest, longest), got {source_lengths!r}"
            )
        names = ("source_lengths[0]", "source_lengths[1]")
        lengths = check_int_range(names, source_lengths[0], source_lengths[1], 1)
        self.train_lengths = self.test_lengths = lengths
        self.longest_target = check_int("longest_target", longest_target, 0)
        self._source_ids = {w: i for i, w in enumerate(self.source_words)}
        self._target_ids = {w: i for i, w in enumerate(self.target_words)}
        self.pairs = tuple(pairs)
        self._encoded = [self.encode(pair) for pair in self.pairs]

    @classmethod
    def from_pairs(cls, pairs: Sequence[TextPair], tokens: Tokenisation = "words") -> TextPairsTask:
        """The task of ``pairs`` (split into ``tokens``), its vocabularies and lengths
        theirs."""
        if not pairs:
            raise ValueError("pairs: expected at least one pair")
        lengths = [len(p.source) for p in pairs]
        return cls(
            sorted({w for p in pairs for w in p.source}),
            sorted({w for p in pairs for w in p.target}),
            (min(lengths), max(lengths)),
            max(len(p.target) for p in pairs),
            pairs,
            tokens,
        )

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], tokens: Tokenisation = "words"
    ) -> TextPairsTask:
        """The task of the pairs file ``path``, split into ``tokens`` (``read_pairs``
        names what is wrong with the file)."""
        return cls.from_pairs(read_pairs(path, tokens), tokens)

    def options(self) -> dict[str, Any]:
        """What ``TextPairsTask(**options)`` rebuilds the task from, without its pairs:
        the vocabularies and lengths (JSON-able, for a saved model)."""
        return {
            "source_words": list(self.source_words),
            "target_words": list(self.target_words),
            "source_lengths": list(self.train_lengths),
            "longest_target": self.longest_target,
            "tokens": self.tokens,
        }

    def __repr__(self) -> str:
        return (
            f"TextPairsTask({len(self.pairs)} pairs, source_vocab={self.source_vocab}, "
            f"target_vocab={self.target_vocab}, tokens={self.tokens!r})"
        )

    @property
    def shortest_source(self) -> int:
        """The shortest source of the pairs trained on."""
        return self.train_lengths[0]

    def encode_source(self, tokens: Sequence[str], where: str) -> list[int]:
        """The source ids of ``tokens``; a UserError naming an unknown token and ``where``."""
        return self._ids(tokens, self._source_ids, where, "source")

    def encode(self, pair: TextPair) -> Pair:
        """The (source ids, target ids) of ``pair``; a UserError naming an unknown token
        and the pair's line."""
        return (
            self.encode_source(pair.source, pair.where),
            self._ids(pair.target, self._target_ids, pair.where, "target"),
        )

    def target_tokens(self, ids: Sequence[int]) -> Tokens:
        """The target tokens of output ids, up to the first ``</s>`` (left out)."""
        out = []
        for i in ids:
            if i == self.eos:
                break
            out.append(self.target_words[i])
        return tuple(out)

    @staticmethod
    def _ids(tokens: Sequence[str], ids: dict[str, int], where: str, side: str) -> list[int]:
        unknown = [t for t in tokens if t not in ids]
        if unknown:
            raise UserError(
                f"{where}: unknown {side} token {unknown[0]!r}; the model knows the "
                f"{len(ids)} {side} tokens of the pairs it was trained on"
            )
        return [ids[t] for t in tokens]

    def reference(self, source: Sequence[int]) -> list[int]:
        """Not defined: the pairs come from a file, not from a function of the source."""
        raise ValueError("reference: text pairs come from a file, not from a function")

    def _pairs(
        self, rng: np.random.Generator, n: int, min_length: int, max_length: int
    ) -> list[Pair]:
        """``n`` of the pairs (as ids) with sources of [min_length, max_length] tokens,
        drawn uniformly with replacement from ``rng`` (``sample_pairs``, whose arguments
        are checked).

        Raises:
            ValueError: a task without pairs, or no pair in the range.
        """
        fits = [p for p in self._encoded if min_length <= len(p[0]) <= max_length]
        if not fits:
            have = "holds no pairs" if not self._encoded else "has no source"
            raise ValueError(
                f"min_length, max_length: the task {have} of {min_length} to {max_length} tokens"
            )
        return [fits[i] for i in rng.integers(0, len(fits), size=n)]
