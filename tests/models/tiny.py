"""Tiny sizes for any registered model, so that tests over the whole registry run fast."""

from __future__ import annotations

from typing import Any

from memrnn.models import registered_model

TINY = {
    "hidden_size": 4,
    "embedding": 3,
    "memory_width": 2,
    "stack_width": 2,
    "stack_depth": 5,
    "readout": 3,
}


def tiny_options(name: str) -> dict[str, Any]:
    """The sizes of ``TINY`` that the constructor of the model ``name`` takes."""
    code = registered_model(name).model.__init__.__code__  # type: ignore[misc]
    takes = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    return {key: value for key, value in TINY.items() if key in takes}
