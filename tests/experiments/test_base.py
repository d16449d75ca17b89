"""RunSpec: its key identifies the computation; tags are labels outside it."""

from __future__ import annotations

import dataclasses

from memrnn.experiments.base import RunSpec


def test_tags_do_not_enter_the_key_and_round_trip() -> None:
    spec = RunSpec("e", "a/seed0", "smoke", {"seed": 0, "lr": 0.1}, "m", "t")
    tagged = dataclasses.replace(spec, tags={"variant": "a", "seed": 0})
    assert tagged.key == spec.key
    assert dataclasses.replace(spec, config={"seed": 0, "lr": 0.2}).key != spec.key
    assert RunSpec.from_dict(tagged.to_dict()) == tagged
    assert tagged.to_dict()["tags"] == {"variant": "a", "seed": 0}
    old = {k: v for k, v in spec.to_dict().items() if k != "tags"}  # stored before tags
    assert RunSpec.from_dict(old) == spec
