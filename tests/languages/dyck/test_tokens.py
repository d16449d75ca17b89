"""The token ids' text form."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from memrnn.languages.dyck import from_text, to_text


def test_text_form_round_trips() -> None:
    assert from_text("([]){}#", 3) == [0, 1, 4, 3, 2, 5, 6]
    assert to_text([0, 1, 4, 3, 2, 5, 6], 3) == "([]){}#"
    assert to_text([0, 4, 8], 4) == "()#"
    assert to_text(np.array([0, 1, 3, 2, 4]), 2) == "([])#"


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: to_text([0], 5), "k"),
        (lambda: from_text("(x", 1), r"text\[1\]"),
    ],
)
def test_bad_arguments_name_themselves(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
