"""Properties of every registered model and of the LSTM language model of Hewitt et al.
(2020) over random sizes and inputs:

- built for a random vocabulary, output count and small sizes, a model maps random
  valid token ids (B, T) and float vectors (B, T, V) to finite outputs (B, T, O);
- any id outside 0 .. V - 1, anywhere in the batch, raises a ValueError naming
  ``inputs``, the id and the vocabulary (never torch's IndexError or RuntimeError);
- vectors of another width or number of dimensions raise a ValueError naming the
  expected shape (B, T, V);
- a size that is not an int >= 1 (0, negative, a bool, a float) is refused by name.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from memrnn.models import LSTMLanguageModel, build_model, model_names, registered_model
from tests.models.tiny import tiny_options

CASES = settings(max_examples=40, deadline=None)
SIZES = ("hidden_size", "embedding", "memory_width", "stack_width", "stack_depth", "readout")


@st.composite
def models(draw: st.DrawFn) -> tuple[str, int, int, torch.nn.Module]:
    """(name, V, O, a model built for V input symbols and O outputs, small sizes)."""
    name = draw(st.sampled_from(model_names()))
    vocab, outputs = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    code = registered_model(name).model.__init__.__code__  # type: ignore[misc]
    takes = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    options = {key: draw(st.integers(1, 4)) for key in SIZES if key in takes}
    torch.manual_seed(draw(st.integers(0, 2**16)))
    return name, vocab, outputs, build_model(name, vocab, outputs, **options)


@st.composite
def token_ids(draw: st.DrawFn, vocab: int) -> torch.Tensor:
    b, t = draw(st.integers(1, 3)), draw(st.integers(1, 5))
    ids = draw(st.lists(st.integers(0, vocab - 1), min_size=b * t, max_size=b * t))
    return torch.tensor(ids).reshape(b, t)


@CASES
@given(built=models(), data=st.data())
def test_valid_input_gives_finite_outputs_of_the_right_shape(
    built: tuple[str, int, int, torch.nn.Module], data: st.DataObject
) -> None:
    _, vocab, outputs, model = built
    ids = data.draw(token_ids(vocab))
    vectors = torch.nn.functional.one_hot(ids, vocab).float()
    with torch.no_grad():
        for inputs in (ids, ids.int(), vectors):
            out = model(inputs)
            assert out.shape == (*ids.shape, outputs)
            assert bool(out.isfinite().all())


@CASES
@given(built=models(), data=st.data())
def test_an_id_outside_the_vocabulary_is_named(
    built: tuple[str, int, int, torch.nn.Module], data: st.DataObject
) -> None:
    _, vocab, _, model = built
    ids = data.draw(token_ids(vocab))
    bad = data.draw(st.one_of(st.integers(vocab, vocab + 1000), st.integers(-1000, -1)))
    ids.view(-1)[data.draw(st.integers(0, ids.numel() - 1))] = bad
    message = f"inputs: ids must lie in 0 .. {vocab - 1} (a vocabulary of {vocab}), found "
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        model(ids)
    # the id reported is an offending one: the smallest or the largest
    assert int(str(error.value).rsplit(" ", 1)[1]) in (int(ids.min()), int(ids.max()))


@CASES
@given(built=models(), data=st.data())
def test_vectors_of_another_shape_are_named(
    built: tuple[str, int, int, torch.nn.Module], data: st.DataObject
) -> None:
    _, vocab, _, model = built
    shape = data.draw(
        st.one_of(
            st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 8)).filter(
                lambda s: s[2] != vocab
            ),
            st.tuples(st.integers(1, 3), st.integers(1, 4)),
            st.tuples(st.integers(1, 3), st.integers(1, 4), st.just(vocab), st.integers(1, 2)),
        )
    )
    with pytest.raises(ValueError, match=re.escape(f"inputs: expected shape (B, T, {vocab})")):
        model(torch.zeros(shape))


bad_size = st.one_of(
    st.integers(-100, 0), st.booleans(), st.floats(allow_nan=True), st.none(), st.text(max_size=2)
)


@CASES
@given(name=st.sampled_from(model_names()), which=st.sampled_from(["in", "out"]), bad=bad_size)
def test_a_bad_size_is_refused_by_name(name: str, which: str, bad: Any) -> None:
    sizes = {"in": 3, "out": 2, which: bad}
    with pytest.raises(
        ValueError, match=rf"^\w+: expected an int >= 1, got {re.escape(repr(bad))}"
    ):
        build_model(name, sizes["in"], sizes["out"], **tiny_options(name))


@CASES
@given(vocab=st.integers(1, 6), data=st.data())
def test_the_language_model_reads_ids_and_padding_and_names_the_rest(
    vocab: int, data: st.DataObject
) -> None:
    torch.manual_seed(0)
    model = LSTMLanguageModel(vocab, data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)))
    ids = data.draw(token_ids(vocab))
    pad = data.draw(st.integers(0, ids.shape[1] - 1))
    padded = ids.clone()
    padded[:, ids.shape[1] - pad :] = -1  # padding follows a string's end
    with torch.no_grad():
        out = model(padded)
    assert out.shape == (*ids.shape, vocab + 1) and bool(out.isfinite().all())
    bad = data.draw(st.one_of(st.integers(vocab, vocab + 1000), st.integers(-1000, -2)))
    ids.view(-1)[data.draw(st.integers(0, ids.numel() - 1))] = bad
    message = f"tokens: ids must lie in 0 .. {vocab - 1} or the padding id -1 (a vocabulary "
    with pytest.raises(ValueError, match=re.escape(message) + rf".*found {bad}$"):
        model(ids)
