"""The reversal task: layout, determinism, accuracy and argument checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from memrnn.tasks import IGNORE_INDEX, ReversalBatch, ReversalTask


def test_sizes() -> None:
    assert ReversalTask().input_size == 4
    assert ReversalTask().output_size == 2
    assert ReversalTask(5).input_size == 7
    assert ReversalTask(5).output_size == 5


@pytest.mark.parametrize(("k", "batch", "length"), [(2, 1, 1), (3, 4, 5), (7, 2, 9)])
def test_shapes_and_dtypes(k: int, batch: int, length: int) -> None:
    b = ReversalTask(k).sample(np.random.default_rng(0), batch, length)
    assert b.inputs.shape == (batch, 2 * length, k + 2)
    assert b.inputs.dtype == torch.float32
    assert b.targets.shape == (batch, 2 * length)
    assert b.targets.dtype == torch.int64
    assert b.sequences.shape == (batch, length)
    assert b.sequences.dtype == torch.int64
    assert int(b.sequences.min()) >= 0
    assert int(b.sequences.max()) < k


def test_hand_made_layout() -> None:
    # k = 3, source [2, 0, 1]: channels 0-2 the symbol, 3 the encoding flag, 4 decoding.
    b = ReversalTask(3).make_batch(torch.tensor([[2, 0, 1]]))
    want_inputs = torch.tensor(
        [
            [0, 0, 1, 1, 0],
            [1, 0, 0, 1, 0],
            [0, 1, 0, 1, 0],
            [0, 0, 0, 0, 1],
            [0, 0, 0, 0, 1],
            [0, 0, 0, 0, 1],
        ],
        dtype=torch.float32,
    )
    torch.testing.assert_close(b.inputs[0], want_inputs)
    assert b.targets[0].tolist() == [IGNORE_INDEX] * 3 + [1, 0, 2]
    assert b.sequences[0].tolist() == [2, 0, 1]
    assert IGNORE_INDEX == -100


def test_sample_matches_make_batch_and_rng() -> None:
    task = ReversalTask(4)
    b = task.sample(np.random.default_rng(3), 6, 5)
    want = np.random.default_rng(3).integers(0, 4, size=(6, 5))
    np.testing.assert_array_equal(b.sequences.numpy(), want)
    again = task.make_batch(b.sequences)
    torch.testing.assert_close(b.inputs, again.inputs)
    torch.testing.assert_close(b.targets, again.targets)


def test_layout_invariants_on_random_batch() -> None:
    k, length = 5, 7
    b = ReversalTask(k).sample(np.random.default_rng(1), 32, length)
    enc, dec = b.inputs[:, :length], b.inputs[:, length:]
    assert torch.equal(enc[..., :k].argmax(-1), b.sequences)
    assert torch.all(enc[..., :k].sum(-1) == 1)
    assert torch.all(enc[..., k] == 1) and torch.all(enc[..., k + 1] == 0)
    assert torch.all(dec[..., : k + 1] == 0) and torch.all(dec[..., k + 1] == 1)
    assert torch.all(b.targets[:, :length] == IGNORE_INDEX)
    assert torch.equal(b.targets[:, length:], b.sequences.flip(1))


def test_determinism() -> None:
    task = ReversalTask(3)
    b1 = task.sample(np.random.default_rng(42), 8, 6)
    b2 = task.sample(np.random.default_rng(42), 8, 6)
    b3 = task.sample(np.random.default_rng(43), 8, 6)
    assert torch.equal(b1.inputs, b2.inputs) and torch.equal(b1.targets, b2.targets)
    assert not torch.equal(b1.sequences, b3.sequences)


def test_symbols_roughly_uniform() -> None:
    seq = ReversalTask(4).sample(np.random.default_rng(0), 1000, 10).sequences
    counts = torch.bincount(seq.flatten(), minlength=4).double() / seq.numel()
    torch.testing.assert_close(
        counts, torch.full((4,), 0.25, dtype=torch.float64), atol=0.02, rtol=0
    )


def _logits_for(predictions: list[list[int]], k: int) -> torch.Tensor:
    """Logits whose argmax at every step is the given symbol."""
    return torch.nn.functional.one_hot(torch.tensor(predictions), k).float() * 5.0


def test_accuracy_on_hand_made_logits() -> None:
    task = ReversalTask(2)
    b = task.make_batch(torch.tensor([[0, 1], [1, 1], [0, 0]]))
    # Targets during decoding: [1, 0], [1, 1], [0, 0]. Encoding-step predictions are
    # deliberately wrong: they must not count.
    preds = [
        [1, 1, 1, 0],  # both right
        [0, 0, 1, 0],  # one of two right
        [1, 1, 1, 1],  # both wrong
    ]
    token, sequence = task.accuracy(_logits_for(preds, 2), b)
    assert token == pytest.approx(3 / 6)
    assert sequence == pytest.approx(1 / 3)
    token, sequence = task.accuracy(_logits_for([[0, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 0]], 2), b)
    assert (token, sequence) == (1.0, 1.0)


def test_accuracy_rejects_wrong_shape() -> None:
    task = ReversalTask(3)
    b = task.sample(np.random.default_rng(0), 2, 3)
    with pytest.raises(ValueError, match="logits"):
        task.accuracy(torch.zeros(2, 6, 2), b)
    with pytest.raises(ValueError, match="logits"):
        task.accuracy(torch.zeros(2, 5, 3), b)


@pytest.mark.parametrize("k", [1, 0, -3, 2.0, True, "2"])
def test_bad_vocab(k: object) -> None:
    with pytest.raises(ValueError, match="vocab_size"):
        ReversalTask(k)  # type: ignore[arg-type]


@pytest.mark.parametrize("length", [0, -1, 2.5])
def test_bad_length(length: object) -> None:
    with pytest.raises(ValueError, match="length"):
        ReversalTask().sample(np.random.default_rng(0), 2, length)  # type: ignore[arg-type]


@pytest.mark.parametrize("batch", [0, -2, None])
def test_bad_batch_size(batch: object) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        ReversalTask().sample(np.random.default_rng(0), batch, 3)  # type: ignore[arg-type]


def test_make_batch_rejects_out_of_vocabulary() -> None:
    with pytest.raises(ValueError, match="sequences"):
        ReversalTask(2).make_batch(torch.tensor([[0, 2]]))
    with pytest.raises(ValueError, match="sequences"):
        ReversalTask(2).make_batch(torch.tensor([[0.0, 1.0]]))


def test_batch_is_frozen() -> None:
    b = ReversalTask().sample(np.random.default_rng(0), 1, 1)
    assert isinstance(b, ReversalBatch)
    with pytest.raises(AttributeError):
        b.inputs = torch.zeros(1)  # type: ignore[misc]


def test_rng_must_be_a_generator() -> None:
    with pytest.raises(ValueError, match=r"rng: expected a numpy\.random\.Generator"):
        ReversalTask().sample(np.random.RandomState(0), 2, 3)  # type: ignore[arg-type]


def test_make_batch_rejects_wrong_rank() -> None:
    with pytest.raises(ValueError, match="sequences"):
        ReversalTask().make_batch(torch.tensor([0, 1, 1]))


def test_the_contract_draws_a_length_then_the_batch() -> None:
    task = ReversalTask(4)
    batch = task.sample_batch(np.random.default_rng(3), 5, 2, 6)
    rng = np.random.default_rng(3)
    plain = task.sample(rng, 5, int(rng.integers(2, 7)))
    assert torch.equal(batch.inputs, plain.inputs) and torch.equal(batch.targets, plain.targets)
    assert torch.equal(batch.mask, plain.targets != IGNORE_INDEX)
    logits = _logits_for(plain.targets.clamp(min=0).tolist(), 4)
    assert task.score(logits, batch) == {"accuracy": 1.0}
