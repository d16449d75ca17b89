"""The argument checks shared by several modules."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.checks import check_token_ids, is_int


def test_is_int() -> None:
    assert is_int(3) and is_int(np.int64(3)) and not is_int(True) and not is_int(3.0)


def test_token_ids_are_checked_at_the_boundary() -> None:
    check_token_ids(torch.zeros(2, 0, dtype=torch.long), 3)  # an empty sequence is allowed
    with pytest.raises(ValueError, match="with T >= 1"):
        check_token_ids(torch.zeros(2, 0, dtype=torch.long), 3, min_steps=1)
    with pytest.raises(ValueError, match="expected integer ids"):
        check_token_ids(torch.zeros(2, 2), 3)
    with pytest.raises(ValueError, match="got list"):
        check_token_ids([[1]], 3)
    with pytest.raises(ValueError, match=r"ids must lie in 0 \.\. 2"):
        check_token_ids(torch.tensor([[3]]), 3)
