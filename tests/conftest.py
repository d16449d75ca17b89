"""Shared test configuration: the slow and gpu markers, hypothesis profiles, and the
compiled loops built before the first test."""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import settings

from memrnn.models.controller.native import prepare

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Build the compiled loops before any test: a test that starts a process and gives
    it seconds to answer must not find it compiling them."""
    prepare()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", help="also run paper-scale tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_slow = pytest.mark.skip(reason="paper-scale: give --runslow")
    skip_gpu = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "slow" in item.keywords and not config.getoption("--runslow"):
            item.add_marker(skip_slow)
        if "gpu" in item.keywords and not torch.cuda.is_available():
            item.add_marker(skip_gpu)
