"""The profiles: smoke, quick and paper, which every experiment has, and laptop, which
the generalisation matrix adds (Delétang et al.'s protocol sized to a laptop CPU).

A module of its own, importing nothing, so that the command line can offer the profiles
without importing torch."""

from __future__ import annotations

from typing import Literal

Profile = Literal["smoke", "quick", "laptop", "paper"]
PROFILE_NAMES: tuple[Profile, ...] = ("smoke", "quick", "paper")  # every experiment's
ALL_PROFILES: tuple[Profile, ...] = ("smoke", "quick", "laptop", "paper")
PROFILE_MEANING = {
    "smoke": "seconds; used by the tests, the numbers mean nothing",
    "quick": "minutes on a laptop CPU, scaled down from the paper",
    "laptop": "the paper's protocol, scaled down for a 2-core CPU",
    "paper": "the paper's settings; a GPU or a cluster",
}
