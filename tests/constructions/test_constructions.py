"""The hand-built Dyck-(k,m) generators: sizes, exact generation, and the checker itself."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.constructions import KINDS, build, theorem_units, verify
from memrnn.constructions.encodings import logarithmic, onehot
from memrnn.languages.dyck import DyckDFA, is_dyck


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("k", "m"), [(2, 1), (2, 4), (3, 2), (5, 3), (7, 1), (6, 2)])
def test_generates_dyck_exhaustively(kind: str, k: int, m: int) -> None:
    model = build(kind, k, m)
    assert model.hidden_size == theorem_units(kind, k, m)
    result = verify(model)
    assert result.generates and result.exhaustive
    assert result.max_forbidden < 1e-30 and result.min_allowed >= 1 / (k + 2)
    assert result.states >= DyckDFA(k, m).num_stacks  # every stack was reached


@pytest.mark.parametrize("kind", ["srnn-onehot", "lstm-onehot"])
def test_one_bracket_type(kind: str) -> None:
    assert verify(build(kind, 1, 3)).generates


@pytest.mark.parametrize("kind", ["srnn-log", "lstm-log"])
def test_long_walks_on_a_large_language(kind: str) -> None:
    result = verify(build(kind, 64, 10), exhaustive=False, steps=400, walks=4)
    assert result.generates and not result.exhaustive and result.states == 1600


def test_the_checker_catches_a_wrong_network() -> None:
    """Swap two close brackets' readout rows: the checker must say it no longer generates."""
    model = build("srnn-onehot", 3, 2)
    V = model.V.clone()
    model.V[3], model.V[4] = V[4], V[3]
    result = verify(model)
    assert not result.generates and result.max_forbidden > result.min_allowed


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"steps": 0}, "steps: expected an int >= 1, got 0"),
        ({"steps": -5}, "steps: expected an int >= 1, got -5"),
        ({"walks": 0}, "walks: expected an int >= 1, got 0"),
        ({"walks": -1}, "walks: expected an int >= 1, got -1"),
        ({"steps": 2.5}, "steps: expected an int >= 1, got 2.5"),
        ({"walks": True}, "walks: expected an int >= 1, got True"),
        ({"seed": -1}, "seed: expected an int >= 0, got -1"),
    ],
)
def test_walks_refuse_counts_that_check_nothing(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        verify(build("lstm-log", 2, 2), exhaustive=False, **options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_states": 0}, "max_states: expected an int >= 1, got 0"),
        ({"chunk_elements": 0}, "chunk_elements: expected an int >= 1, got 0"),
        ({"chunk_elements": -3}, "chunk_elements: expected an int >= 1, got -3"),
    ],
)
def test_the_exhaustive_search_refuses_bad_counts(options: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        verify(build("srnn-log", 2, 2), **options)


def test_an_option_of_the_other_search_is_refused_by_name() -> None:
    model = build("srnn-log", 2, 2)
    with pytest.raises(ValueError, match="steps: not an option of the exhaustive search"):
        verify(model, steps=10)
    with pytest.raises(ValueError, match="max_states: not an option of random walks"):
        verify(model, exhaustive=False, max_states=10)


def _scrambled(kind: str, k: int, m: int, seed: int) -> torch.nn.Module:
    """The construction with each weight tensor's entries shuffled."""
    model = build(kind, k, m)
    generator = torch.Generator().manual_seed(seed)
    for tensor in model.buffers():
        flat = tensor.view(-1)
        flat.copy_(flat[torch.randperm(flat.numel(), generator=generator)])
    return model


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scrambled_weights_are_never_reported_as_generating(kind: str, seed: int) -> None:
    model = _scrambled(kind, 3, 2, seed)
    walked = verify(model, exhaustive=False, steps=200, walks=2, seed=seed)
    assert walked.states == 400 and not walked.generates
    try:
        searched = verify(model)
    except RuntimeError as error:  # shuffled weights rarely keep every unit saturated
        assert "not saturated" in str(error)
    else:
        assert not searched.generates


def test_the_checker_refuses_unsaturated_states() -> None:
    model = build("srnn-onehot", 2, 2)
    model.b.mul_(0.0)  # every unit at sigmoid(small) now
    with pytest.raises(RuntimeError, match="not saturated"):
        verify(model)


@pytest.mark.parametrize("kind", KINDS)
def test_forward_gives_the_allowed_tokens_of_each_prefix(kind: str) -> None:
    k, m = 3, 2
    model = build(kind, k, m)
    words = [[0, 1, 4, 3, 2, 5, 6], [2, 2, 5, 5, 6], [6]]
    for word in words:
        assert is_dyck(word, k, m)
        probs = model(torch.tensor([word]))[0]
        assert probs.shape == (len(word) + 1, 2 * k + 1)
        assert torch.allclose(probs.sum(dim=1), torch.ones(len(word) + 1))
        dfa = DyckDFA(k, m)
        state = dfa.start
        for t in range(len(word)):
            np.testing.assert_array_equal(probs[t].numpy() > 1e-6, dfa.allowed(state))
            state = dfa.step(state, word[t])


def test_encodings_have_the_validity_property() -> None:
    for encoding in (onehot(5), logarithmic(5), logarithmic(2), logarithmic(1000)):
        scores = encoding.readout @ encoding.codes.T
        np.testing.assert_array_equal(np.diag(scores), 1.0)
        off = scores[~np.eye(len(scores), dtype=bool)]
        assert (off <= 0).all()
        np.testing.assert_array_equal(encoding.codes.sum(axis=1), encoding.ones)
    assert logarithmic(5).width == 3 * 3 - 1


def test_theorem_units_by_hand() -> None:
    # k = 5 needs 3 bits: psi_* has 3 * 3 - 1 = 8 dimensions per slot
    assert theorem_units("srnn-log", 5, 3) == 2 * 3 * 8
    assert theorem_units("lstm-log", 5, 3) == 3 * 8
    assert theorem_units("srnn-onehot", 5, 3) == 30 and theorem_units("lstm-onehot", 5, 3) == 15
    assert theorem_units("srnn-dfa", 2, 3) == 2 * (2 + 4 + 8)
    with pytest.raises(ValueError, match="kind: expected one of"):
        theorem_units("gru", 2, 2)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="kind: expected one of"):
        build("gru", 2, 2)
    with pytest.raises(ValueError, match="k: expected an int >= 1"):
        build("srnn-onehot", 0, 2)
    with pytest.raises(ValueError, match="m: expected an int >= 1"):
        build("lstm-onehot", 2, 0)
    with pytest.raises(ValueError, match="k: the logarithmic code needs k >= 2"):
        build("srnn-log", 1, 2)
    model = build("srnn-onehot", 2, 2)
    with pytest.raises(ValueError, match=r"tokens: ids must lie in 0 \.\. 4"):
        model(torch.tensor([[0, 5]]))
    with pytest.raises(ValueError, match="tokens: expected a"):
        model(torch.tensor([0, 1]))
    with pytest.raises(ValueError, match=r"tokens: expected a .* of int64 or int32 ids"):
        model(torch.tensor([[0.0, 1.0]]))


@pytest.mark.parametrize(("k", "m"), [(1, 3), (2, 1), (3, 3), (7, 2)])
def test_batched_masks_and_transitions_match_the_automaton(k: int, m: int) -> None:
    from memrnn.constructions.verify import _allowed_masks, _transitions

    dfa = DyckDFA(k, m)
    codes = np.random.default_rng(0).integers(0, dfa.num_stacks, size=50)
    masks = _allowed_masks(dfa, codes)
    for row, code in enumerate(codes):
        assert (masks[row] == dfa.allowed(dfa.decode(int(code)))).all()
    rows, tokens, nxt = _transitions(dfa, codes)
    want = sorted(
        (row, t, dfa.step_code(int(code), t))
        for row, code in enumerate(codes)
        for t in np.flatnonzero(masks[row])
        if t != dfa.end
    )
    assert sorted(zip(rows.tolist(), tokens.tolist(), nxt.tolist(), strict=True)) == want


def test_search_in_small_chunks_equals_one_batch() -> None:
    model = build("lstm-log", 5, 3)
    whole = verify(model)
    assert verify(model, chunk_elements=7) == whole and whole.states == 1 + 5 + 25 + 125


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("kind", KINDS)
def test_search_on_cuda_equals_the_cpu(kind: str) -> None:
    cpu = verify(build(kind, 3, 3))
    cuda = verify(build(kind, 3, 3).to("cuda"))
    assert cuda.generates and cuda.states == cpu.states
    assert cuda.min_allowed == pytest.approx(cpu.min_allowed, rel=1e-5)
    walks = verify(build(kind, 3, 3).to("cuda"), exhaustive=False, steps=50, walks=2)
    assert walks.generates


def _literal_keys(states: torch.Tensor) -> list[bytes] | None:
    """Each unit's nearest level, comparing it with every level in turn (the first
    nearest in ``LEVELS`` order), digested as ``_keys`` does; None where a unit is farther
    than ``SATURATION`` from every level (or is not a number)."""
    import hashlib
    import math

    from memrnn.constructions.verify import LEVELS, SATURATION

    values = states.double().numpy()
    nearest = np.zeros(values.shape, dtype=np.int8)
    for (row, unit), value in np.ndenumerate(values):
        distances = [abs(value - level) for level in LEVELS]
        best = min(range(len(LEVELS)), key=lambda i: (distances[i], i))
        if not distances[best] <= SATURATION or math.isnan(value):
            return None
        nearest[row, unit] = best
    return [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in nearest]


@pytest.mark.parametrize("seed", range(6))
def test_state_keys_are_the_nearest_levels_found_literally(seed: int) -> None:
    from memrnn.constructions.verify import LEVELS, SATURATION, _keys

    rng = np.random.default_rng(seed)
    levels = LEVELS[rng.integers(0, len(LEVELS), size=(40, 30))]
    jitter = (
        rng.uniform(-0.9, 0.9, size=levels.shape)
        * SATURATION
        * rng.integers(0, 2, size=levels.shape)
    )
    states = torch.tensor(levels + jitter, dtype=torch.float32)
    assert _keys(states) == _literal_keys(states)
    assert len(set(_keys(states))) == len({tuple(r) for r in levels.tolist()})
    for bad in (float("nan"), float("inf"), -float("inf"), 0.5, 1 + 3 * SATURATION, -0.38079708):
        broken = states.clone()
        broken[rng.integers(0, 40), rng.integers(0, 30)] = bad
        assert _literal_keys(broken) is None
        with pytest.raises(RuntimeError, match="not saturated"):
            _keys(broken)
