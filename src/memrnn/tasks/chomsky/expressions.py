"""Random bracketed expressions modulo m, of an exact length, for Modular Arithmetic with
brackets and Solve Equation (Delétang et al. 2023, Appendix A).

The authors' recursive generator (``generate_one_expression_and_result`` in
``tasks/dcf/modular_arithmetic_brackets.py``), as a distribution: an expression of
length n is

- n = 1: a residue d; n = 2: -d; n = 3: (d); n = 4: (-d), with d uniform in 0 .. m-1;
- n >= 5: ( left op right ), with left's length uniform in 1 .. n-4, right's the
  n - 3 - left that remain, and op uniform among the allowed operators,

and its value is computed mod m. Here the trees of a whole batch grow together, one
level of the recursion at a time, and their values are found level by level from the
deepest, so a batch costs a few NumPy calls per level rather than Python calls per node.

Symbols (the authors' alphabet for this task): residues 0 .. m-1, then + m, - m+1,
* m+2, ( m+3, ) m+4.
"""

from __future__ import annotations

import numpy as np

PLUS, MINUS, TIMES, OPEN, CLOSE = range(5)  # offsets from m of the symbols after the residues


def random_expressions(
    rng: np.random.Generator, batch_size: int, length: int, modulus: int, times: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(B, length) int64 symbols of ``batch_size`` random expressions and their (B,)
    values mod ``modulus``; with ``times``, * is among the operators, else only + and -.
    Arguments are trusted (length >= 1, modulus >= 2)."""
    symbols = np.empty((batch_size, length), dtype=np.int64)
    # Nodes of all trees in one numbering: the roots are 0 .. B-1.
    values = np.zeros(batch_size * length, dtype=np.int64)
    row = np.arange(batch_size)
    start = np.zeros(batch_size, dtype=np.int64)
    size = np.full(batch_size, length, dtype=np.int64)
    node = np.arange(batch_size)
    created = batch_size
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    while row.size:
        leaf = size < 5
        _leaves(rng, symbols, values, row[leaf], start[leaf], size[leaf], node[leaf], modulus)
        inner = ~leaf
        row, start, size, node = row[inner], start[inner], size[inner], node[inner]
        if not row.size:
            break
        left = rng.integers(1, size - 3)  # 1 .. size - 4
        op = rng.integers(0, 3 if times else 2, size=row.size)
        symbols[row, start] = modulus + OPEN
        symbols[row, start + size - 1] = modulus + CLOSE
        symbols[row, start + 1 + left] = modulus + op
        count = row.size
        children = np.arange(created, created + 2 * count)
        created += 2 * count
        levels.append((node, op, children[:count], children[count:]))
        row = np.concatenate([row, row])
        start = np.concatenate([start + 1, start + 2 + left])
        size = np.concatenate([left, size - 3 - left])
        node = children
    for parent, op, first, second in reversed(levels):
        a, b = values[first], values[second]
        combined = np.where(op == PLUS, a + b, np.where(op == MINUS, a - b, a * b))
        values[parent] = combined % modulus
    return symbols, values[:batch_size]


def _leaves(
    rng: np.random.Generator,
    symbols: np.ndarray,
    values: np.ndarray,
    row: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    node: np.ndarray,
    modulus: int,
) -> None:
    """Write the leaves d, -d, (d), (-d) of sizes 1 .. 4 and store their values."""
    digit = rng.integers(0, modulus, size=row.size)
    negated = (size == 2) | (size == 4)
    bracketed = size >= 3
    symbols[row[bracketed], start[bracketed]] = modulus + OPEN
    symbols[row[bracketed], (start + size - 1)[bracketed]] = modulus + CLOSE
    symbols[row[negated], (start + bracketed)[negated]] = modulus + MINUS
    symbols[row, start + bracketed + negated] = digit
    values[node] = np.where(negated, -digit, digit) % modulus
