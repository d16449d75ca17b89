"""How a stack slot stores one open bracket: the codes psi of Hewitt et al. (2020).

``onehot``: e_i in k dimensions (Theorems 2 and 3). ``log``: psi_*(i) = [p; 1 - p; 1]
with p the ceil(log2 k) bits of i and 1 the all-ones vector of ceil(log2 k) - 1
dimensions, 3 ceil(log2 k) - 1 in all (Appendix G, Eq. G.1; Theorems 4 and 5).

Every code is a 0/1 vector with the same number of ones, so a slot's sum over that
number says whether it holds a bracket; and each code i has a readout row v_i with
v_i . psi(i) = 1 and v_i . psi(j) <= 0 for j != i (the paper's softmax validity
property, Definition 11), so a linear function of the top slot tells which bracket it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from memrnn.validation import check_int


@dataclass(frozen=True)
class Encoding:
    """Codes and readout rows for k brackets.

    Attributes:
        codes: (k, d) 0/1 rows psi(i).
        readout: (k, d) rows v_i with v_i . psi(i) = 1 and v_i . psi(j) <= 0 otherwise.
        ones: the number of ones in every code.
    """

    codes: np.ndarray
    readout: np.ndarray
    ones: int

    @property
    def width(self) -> int:
        return int(self.codes.shape[1])


def onehot(k: int) -> Encoding:
    """e_i for bracket i, read out by e_i (k an int >= 1)."""
    eye = np.eye(check_int("k", k, 1))
    return Encoding(eye, eye.copy(), 1)


def log_bits(k: int) -> int:
    """ceil(log2 k), the bits that number k brackets (k an int >= 2)."""
    return math.ceil(math.log2(check_int("k", k, 2)))


def logarithmic(k: int) -> Encoding:
    """psi_*(i) = [p; 1 - p; 1] (Eq. G.1) in 3 ceil(log2 k) - 1 dimensions, read out by
    v_i = [p; 1 - p; -1] (Eq. G.2): v_i . psi(j) counts the bits on which i and j agree,
    minus ceil(log2 k) - 1."""
    if check_int("k", k, 1) < 2:
        raise ValueError(f"k: the logarithmic code needs k >= 2, got {k}")
    b = log_bits(k)
    bits = (np.arange(k)[:, None] >> np.arange(b)[None, :]) & 1
    ones = np.ones((k, b - 1))
    codes = np.hstack([bits, 1 - bits, ones]).astype(np.float64)
    readout = np.hstack([bits, 1 - bits, -ones]).astype(np.float64)
    return Encoding(codes, readout, 2 * b - 1)
