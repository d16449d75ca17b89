"""The three profiles every experiment has: smoke, quick and paper.

A module of its own, importing nothing, so that the command line can offer the profiles
without importing torch."""

from __future__ import annotations

from typing import Literal

Profile = Literal["smoke", "quick", "paper"]
PROFILE_NAMES: tuple[Profile, ...] = ("smoke", "quick", "paper")
PROFILE_MEANING = {
    "smoke": "seconds; used by the tests, the numbers mean nothing",
    "quick": "minutes on a laptop CPU, scaled down from the paper",
    "paper": "the paper's settings; a GPU or a cluster",
}
