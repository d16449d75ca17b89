"""A training loss compiled by ``torch.compile``, for the small models whose step is many
small operations.

At Ba et al.'s (2016) sizes (batch 128, 11 steps, R = 20 or 50 units) a step of the
A-LSTM or the fast-weights RNN is some forty small tensor operations a time step, forward
and backward, each a few microseconds of dispatch on a CPU; inductor fuses them into a few
loops. The compiled step computes the same function rounded differently, so a config
asks for it by name and the runs record it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

import torch
from torch import Tensor


def can_compile() -> bool:
    """Whether a C++ compiler is found, which inductor needs on a CPU (``$CXX``, else
    ``c++``, ``g++`` or ``clang++`` on the PATH). Where there is none, the experiments
    train these steps eagerly and their configs say so (``compiled=False``): unlike the
    memory models' compiled loops, a compiled step has no fall-back with the same numbers.
    """
    names = [os.environ["CXX"]] if os.environ.get("CXX") else ["c++", "g++", "clang++"]
    return any(shutil.which(name) for name in names)


def compiled_loss(loss: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``loss`` compiled for static shapes (one graph per batch shape, built at the
    first call and kept in inductor's cache on disk for later processes).

    It first clears torch.compile's caches in this process (``torch.compiler.reset``):
    dynamo compiles one function's code for at most ``recompile_limit`` (8) kinds of
    model and shape per process and then runs it eagerly, with only a log line, so a
    process that trains many runs one after another would train the later ones eagerly.
    The returned function raises a RuntimeError that names the ``compiled`` setting where
    torch.compile cannot build the step (no C++ compiler, an unsupported platform), rather
    than falling back to the eager step, whose numbers would differ."""
    torch.compiler.reset()
    built = torch.compile(loss, dynamic=False)

    def call(*args: object) -> Tensor:
        try:
            return built(*args)
        except torch._dynamo.exc.BackendCompilerFailed as error:
            raise RuntimeError(
                f"compiled: torch.compile could not build the training step ({error}); "
                "set compiled=False in the run's config to train without it"
            ) from error

    return call
