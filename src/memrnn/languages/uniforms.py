"""A generator's uniform draws taken ahead in blocks, for samplers that draw one at a time.

A grammar sampler makes one choice per expansion, and a ``rng.random()`` call costs more
than the rest of the expansion. ``Uniforms`` draws the same numbers ahead, a block at a
time, and hands them out one by one through ``next`` (``list.pop``, a call into C); on
leaving its ``with`` block, ``rng`` is put back where it stood and advanced past the
draws used, no further, so it stands exactly where as many ``rng.random()`` calls would
have left it, and every later draw is the same as before.

>>> import numpy as np
>>> a, b = np.random.default_rng(0), np.random.default_rng(0)
>>> with Uniforms(a) as uniforms:
...     uniforms.reserve(2)
...     drawn = [uniforms.next(), uniforms.next()]
>>> drawn == [b.random(), b.random()] and a.random() == b.random()
True
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any

import numpy as np

_BLOCK = 512  # draws taken ahead at a time, at least


class Uniforms:
    """The uniform doubles in [0, 1) that ``rng.random()`` would give, one per ``next()``.

    ``next`` raises IndexError past the draws reserved: call ``reserve(n)`` before a run
    of at most n draws. Use it as a context manager (it may be entered again), and draw
    from ``rng`` only through it while it is open; on exit (an exception included)
    ``rng`` is advanced past every draw handed out, and no further.

    Args:
        rng: the generator the draws come from.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._start: Mapping[str, Any] | None = None  # where rng stood on entering
        self._block: list[float] = []  # the draws not yet handed out, the next one last
        self._drawn = 0
        self.next = self._block.pop
        """The next draw."""

    def reserve(self, n: int) -> None:
        """Make sure the next ``n`` draws are at hand.

        Raises:
            RuntimeError: outside the ``with`` block, where rng could not be put back.
        """
        if self._start is None:
            raise RuntimeError("Uniforms: reserve draws inside its with block")
        if len(self._block) < n:
            more = self._rng.random(max(n, _BLOCK)).tolist()
            more.reverse()
            self._block[:0] = more
            self._drawn += len(more)

    def __enter__(self) -> Uniforms:
        self._start = self._rng.bit_generator.state
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        used = self._drawn - len(self._block)
        if self._drawn and self._start is not None:
            self._rng.bit_generator.state = self._start
            self._rng.random(used)  # the draws handed out again, to leave rng after them
        self._start, self._drawn, self._block[:] = None, 0, []
