"""The causal Transformer trained as one (memrnn.models.grouped) against its members one
by one."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable

import pytest
import torch
from torch import nn

from memrnn.models import CausalTransformer
from memrnn.models.grouped import Grouped, groupable
from tests.models.grouped_checks import check_against_members, inputs
from tests.models.grouped_checks import members as _members


def _transformer(**options: object) -> Callable[[], nn.Module]:
    return lambda: CausalTransformer(5, 7, 8, 2, 2, 16, **{"dropout": 0.0, **options})  # type: ignore[arg-type]


SHAPES = list(itertools.product(("none", "sinusoidal", "alibi"), (True, False)))
CASES = {
    **{f"{pos}-{'pre' if first else 'post'}-ln": (_transformer(positional=pos, norm_first=first),
                                                 pos == "alibi")
       for pos, first in SHAPES},
    "sinusoidal-ids": (_transformer(), True),
}  # fmt: skip


@pytest.mark.parametrize(
    ("dtype", "atol"), [(torch.float32, 1e-5), (torch.float64, 1e-12)], ids=["f32", "f64"]
)
@pytest.mark.parametrize(("build", "tokens"), CASES.values(), ids=CASES.keys())
def test_forward_and_gradients_match_themembers(
    build: Callable[[], nn.Module], tokens: bool, dtype: torch.dtype, atol: float
) -> None:
    check_against_members(_members(build, dtype), inputs(tokens, 4, 9, dtype), atol)


@pytest.mark.parametrize("positional", ["sinusoidal", "alibi"])
def test_one_step_and_one_row(positional: str) -> None:
    members = _members(_transformer(positional=positional))
    check_against_members(members, inputs(True, 1, 1, torch.float32), 1e-5)


def test_evaluation_mode_gives_what_training_mode_gives() -> None:
    members = _members(_transformer(positional="alibi"))
    grouped = Grouped(members)
    x = inputs(True, 2, 6, torch.float32)
    train = grouped.train()(x)
    for member in members:
        member.eval()
    assert torch.equal(train, grouped.eval()(x))
    want = torch.stack([m(x[k]) for k, m in enumerate(members)])
    torch.testing.assert_close(train, want, rtol=0, atol=1e-5)


def test_groupable_only_without_dropout() -> None:
    assert groupable(_transformer()())
    assert not groupable(CausalTransformer(5, 7, 8, 2, 2, 16))  # dropout 0.1 by default
    with pytest.raises(ValueError, match=r"members\[1\]: a CausalTransformer cannot be grouped"):
        Grouped([_transformer()(), _transformer(dropout=0.1)()])


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"positional": "alibi"}, "positional is 'alibi'"),
        ({"norm_first": False}, "norm_first is False"),
        ({}, "self_attn.head_dim is 2"),  # 4 heads of 2 against 2 heads of 4: the same shapes
    ],
)
def test_members_must_agree(options: dict[str, object], match: str) -> None:
    second = CausalTransformer(5, 7, 8, 2, 4 if not options else 2, 16, dropout=0.0,
                               **options)  # type: ignore[arg-type]  # fmt: skip
    with pytest.raises(ValueError, match=match):
        Grouped([_transformer()(), second])


def test_vmap_batches_the_attention_rather_than_running_member_by_member() -> None:
    members = _members(_transformer(positional="alibi"))
    with warnings.catch_warnings(record=True) as seen:  # a fallback warns of a "performance drop"
        warnings.simplefilter("always")
        grouped = Grouped(members)
        grouped(inputs(True, 2, 6, torch.float32)).sum().backward()
    assert grouped.vmapped
    assert not [w for w in seen if "performance drop" in str(w.message)]
