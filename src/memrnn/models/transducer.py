"""The transduction models of Grefenstette et al. (2015), sections 3.4 and 4.

Both read token ids through an input embedding (64-d in the paper; vectors, as for the
benchmarks of Paassen, Schulz, Hammer 2021, through the same weights, ``InputEmbedding``)
and emit, at every
step, o_t = tanh(W_o o'_t + b_o) of the embedding's size, scored against an output
embedding (a linear layer to the output vocabulary):

- ``MemoryAugmentedLSTM``: a single-layer LSTM controller whose input is the embedding
  concatenated with the previous read(s) of a neural Stack, Queue or DeQue, o'_t = h_t,
  a learned h_0 and c_0, and push, pop and value projections (two sets for a DeQue) with
  the pop bias at -1 (the paper's Appendix B).
- ``DeepLSTM``: the baseline, a stack of 1 to 8 LSTM layers.

Both take an initial state and stream, as ``nn.LSTM`` does (``memrnn.models.state``):
``model(inputs, state)`` starts from ``state`` and ``model.stream(inputs, state)`` also
returns the state after the last step.

``core_parameters`` counts what the paper's Appendix D counts: everything but the input
embedding and the output layer (at hidden 256 and 512 the two agree within 5%, tested).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import torch
from torch import Tensor, nn

from memrnn.models.checks import ID_DTYPES, InputKind, check_token_ids
from memrnn.models.controller import Carry, MemoryKind, MemoryRNN
from memrnn.models.embedding import InputEmbedding
from memrnn.models.lstm_autocast import run_lstm
from memrnn.models.state import check_lstm_state
from memrnn.models.trace import Trace
from memrnn.validation import check_int, check_sizes


class MemoryAugmentedLSTM(nn.Module):
    """An LSTM controller with a neural Stack, Queue or DeQue, on token ids or vectors.

    ``forward`` gives the logits (B, T, V_out) for token ids (B, T) or vectors
    (B, T, V_in), teacher-forced; ``trace`` also the gates. Its state is its controller's
    ``Carry`` (``MemoryRNN``): h, c, the last reads and the memory, whose room grows
    as a stream goes on; None stands for learned h_0, c_0, zero reads and an empty memory.

    Args:
        input_vocab, output_vocab: sizes of the input and output vocabularies (the
            input vocabulary is the width of input vectors).
        memory: "stack", "queue" or "deque".
        hidden_size: the LSTM's units (256 or 512 in the paper).
        embedding: size of the input embedding and of o_t (64).
        memory_width: m, the width of the memory's values (256).
        pop_bias, push_bias: initial biases of the pop and push gates.
        gate_noise: training-mode noise on the gates' pre-activations (``MemoryRNN``).
        bottom_push_bias: a deque's bottom end's initial push bias (default ``push_bias``).
        round_gates: in evaluation mode, push and pop strengths rounded to 0 or 1
            (``MemoryRNN``).
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")

    def __init__(
        self,
        input_vocab: int,
        output_vocab: int,
        *,
        memory: MemoryKind = "stack",
        hidden_size: int = 256,
        embedding: int = 64,
        memory_width: int = 256,
        pop_bias: float = -1.0,
        push_bias: float = 0.0,
        gate_noise: float = 0.0,
        bottom_push_bias: float | None = None,
        round_gates: bool = False,
    ) -> None:
        super().__init__()
        check_sizes(
            input_vocab=input_vocab,
            output_vocab=output_vocab,
            hidden_size=hidden_size,
            embedding=embedding,
            memory_width=memory_width,
        )
        self.input_vocab, self.output_vocab = input_vocab, output_vocab
        self.embed = InputEmbedding(input_vocab, embedding)
        self.core = MemoryRNN(
            embedding,
            embedding,
            hidden_size,
            memory_width,
            memory=memory,
            cell="lstm",
            o_prime_layer=False,
            push_bias=push_bias,
            pop_bias=pop_bias,
            gate_noise=gate_noise,
            bottom_push_bias=bottom_push_bias,
            round_gates=round_gates,
        )
        self.output = nn.Linear(embedding, output_vocab)

    def forward(self, inputs: Tensor, state: Carry | None = None) -> Tensor:
        """Logits (B, T, V_out) for token ids (B, T) or vectors (B, T, V_in), teacher-forced,
        from ``state`` (``stream``)."""
        if state is None:
            return self.trace(inputs).outputs
        return self.stream(inputs, state)[0]

    def stream(self, inputs: Tensor, state: Carry | None = None) -> tuple[Tensor, Carry]:
        """Logits (B, T, V_out) from ``state`` (None: ``initial_state``) and the state after
        the last step (``MemoryRNN.stream``).

        Raises:
            ValueError: naming ``inputs``, or ``state`` when it does not fit.
        """
        outputs, state = self.core.stream(self.embed.sequences(inputs), state)
        return self.output(torch.tanh(outputs)), state

    def initial_state(self, batch_size: int) -> Carry:
        """The state ``state=None`` stands for (``MemoryRNN.initial_state``)."""
        return self.core.initial_state(batch_size)

    def trace(self, inputs: Tensor, *, strengths: bool = False) -> Trace:
        """The logits and the gates of every step for token ids (B, T) or vectors
        (B, T, V_in), in one pass; with ``strengths``, also the memory's strengths
        (``MemoryRNN.trace``)."""
        out = self.core.trace(self.embed.sequences(inputs), strengths=strengths)
        return Trace(
            self.output(torch.tanh(out.outputs)),
            out.push,
            out.pop,
            out.push_bot,
            out.pop_bot,
            out.strengths,
        )

    def start(self, batch: int, capacity: int) -> Carry:
        """The recurrent state before any token, with memory room for ``capacity`` steps."""
        return self.core.start(batch, capacity)

    def step(self, carry: Carry, tokens: Tensor, *, validate: bool = True) -> tuple[Tensor, Carry]:
        """Logits (B, V_out) after one token (B,) or vector (B, V_in) per sequence, and the
        next state. ``validate=False`` skips the check of ``tokens``, whose id range reads
        one pair of numbers back from the device: for a loop that checked its inputs once.

        Raises:
            ValueError: naming ``tokens``: an id outside the input vocabulary, or a shape,
                dtype or device that does not fit.
        """
        x = self.embed.one_step(tokens) if validate else self.embed(tokens)
        out, carry = self.core.step(carry, x)
        return self.output(torch.tanh(self.core.out(out.o_prime))), carry


class DeepLSTM(nn.Module):
    """The Deep LSTM baseline: ``layers`` stacked LSTMs of ``hidden_size`` units on token
    ids or vectors, logits (B, T, V_out) per step. Its state is ``nn.LSTM``'s (h, c),
    (layers, B, H) each; None stands for zeros.

    Args:
        input_vocab, output_vocab: sizes of the input and output vocabularies (the
            input vocabulary is the width of input vectors).
        hidden_size: units per layer.
        layers: 1, 2, 4 or 8 in the paper (any count >= 1 here).
        embedding: size of the input embedding and of o_t.
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")

    def __init__(
        self, input_vocab: int, output_vocab: int, *, hidden_size: int = 256, layers: int = 1,
        embedding: int = 64,
    ) -> None:  # fmt: skip
        super().__init__()
        check_sizes(
            input_vocab=input_vocab,
            output_vocab=output_vocab,
            hidden_size=hidden_size,
            layers=layers,
            embedding=embedding,
        )
        self.input_vocab, self.output_vocab = input_vocab, output_vocab
        self.embed = InputEmbedding(input_vocab, embedding)
        self.lstm = nn.LSTM(embedding, hidden_size, num_layers=layers, batch_first=True)
        self.project = nn.Linear(hidden_size, embedding)
        self.output = nn.Linear(embedding, output_vocab)

    def forward(self, inputs: Tensor, state: tuple[Tensor, Tensor] | None = None) -> Tensor:
        """Logits (B, T, V_out) for token ids (B, T) or vectors (B, T, V_in) from ``state``."""
        return self.stream(inputs, state)[0]

    def stream(
        self, inputs: Tensor, state: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Logits (B, T, V_out) from ``state``, nn.LSTM's (h_0, c_0), (layers, B, H) each
        (None: zeros), and its (h_n, c_n) after the last step.

        Raises:
            ValueError: naming ``inputs``, or ``state`` when it does not fit.
        """
        embedded = self.embed.sequences(inputs)
        if state is not None:
            lstm = self.lstm
            like = next(lstm.parameters())
            shape = (lstm.num_layers, embedded.shape[0], lstm.hidden_size)
            state = check_lstm_state(state, *shape, like)
        states, last = run_lstm(self.lstm, embedded, state)
        return self.output(torch.tanh(self.project(states))), last

    def initial_state(self, batch_size: int) -> tuple[Tensor, Tensor]:
        """nn.LSTM's zero (h_0, c_0), (layers, B, H) each."""
        lstm = self.lstm
        zeros = next(lstm.parameters()).new_zeros(lstm.num_layers, batch_size, lstm.hidden_size)
        return zeros, zeros.clone()

    def start(self, batch: int, capacity: int) -> tuple[Tensor, Tensor] | None:
        """No state before the first token (the LSTM starts from zeros)."""
        return None

    def step(
        self, carry: tuple[Tensor, Tensor] | None, tokens: Tensor, *, validate: bool = True
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Logits (B, V_out) after one token (B,) or vector (B, V_in) per sequence, and the
        next state (``validate`` and the checks as for ``MemoryAugmentedLSTM.step``)."""
        x = self.embed.one_step(tokens) if validate else self.embed(tokens)
        states, carry = run_lstm(self.lstm, x[:, None], carry)
        return self.output(torch.tanh(self.project(states[:, 0]))), carry


def core_parameters(model: MemoryAugmentedLSTM | DeepLSTM) -> int:
    """Parameters other than the input embedding and the output layer (Appendix D's count)."""
    outer = {id(p) for module in (model.embed, model.output) for p in module.parameters()}
    return sum(p.numel() for p in model.parameters() if id(p) not in outer)


@torch.no_grad()
def greedy_decode(
    model: MemoryAugmentedLSTM | DeepLSTM,
    prefixes: Tensor,
    prefix_lengths: Tensor,
    steps: int,
    feed: Callable[[Tensor], Tensor],
) -> Tensor:
    """Greedy predictions (B, steps) after each row's prefix.

    Row b reads its first ``prefix_lengths[b]`` ids of ``prefixes`` (B, P) (``<s> source
    |||``); its first prediction is the argmax after the last of them, and every later one
    the argmax after feeding the previous prediction back as the input ``feed(prediction)``.
    All rows advance together: a row still reading its prefix ignores its outputs.

    The prefixes are checked once here, not at every step; ``feed`` is trusted to give
    input ids.

    Raises:
        ValueError: naming ``prefixes``, ``prefix_lengths`` (ints in 1 .. P, one per row)
            or ``steps`` (an int >= 1).
    """
    steps = check_int("steps", steps, 1)
    longest = _longest_prefix(model, prefixes, prefix_lengths)
    batch = prefixes.shape[0]
    if batch == 0:
        return prefixes.new_zeros(0, steps)
    carry = model.start(batch, longest + steps)
    predictions = prefixes.new_zeros(batch, steps)
    made = prefixes.new_zeros(batch)  # predictions made per row
    tokens = prefixes[:, 0]
    for t in range(longest + steps - 1):
        logits, carry = model.step(carry, tokens, validate=False)  # type: ignore[arg-type]
        guess = logits.argmax(dim=1)
        emitting = (t >= prefix_lengths - 1) & (made < steps)
        rows = emitting.nonzero()[:, 0]
        predictions[rows, made[rows]] = guess[rows]
        made += emitting.long()
        if bool((made >= steps).all()):
            break
        reading = t + 1 < prefix_lengths
        ahead = prefixes[:, min(t + 1, prefixes.shape[1] - 1)]
        tokens = torch.where(reading, ahead, feed(guess))
    return predictions


def _longest_prefix(
    model: MemoryAugmentedLSTM | DeepLSTM, prefixes: object, prefix_lengths: object
) -> int:
    """The longest of ``prefix_lengths`` (0 for no rows), after checking the prefixes'
    ids (B, P) and their lengths, ints in 1 .. P (one reduction each)."""
    ids = check_token_ids(prefixes, model.input_vocab, name="prefixes", min_steps=1)
    batch, width = ids.shape
    if (
        not isinstance(prefix_lengths, Tensor)
        or tuple(prefix_lengths.shape) != (batch,)
        or prefix_lengths.dtype not in ID_DTYPES
        or prefix_lengths.device != ids.device
    ):
        got = (
            f"{tuple(prefix_lengths.shape)} {prefix_lengths.dtype} on {prefix_lengths.device}"
            if isinstance(prefix_lengths, Tensor)
            else type(prefix_lengths).__name__
        )
        raise ValueError(
            f"prefix_lengths: expected a ({batch},) integer tensor on {ids.device}, got {got}"
        )
    if batch == 0:
        return 0
    shortest, longest = torch.stack(torch.aminmax(prefix_lengths)).tolist()
    if shortest < 1 or longest > width:
        raise ValueError(
            f"prefix_lengths: expected ints in 1 .. {width} (the prefixes' width), found "
            f"{shortest if shortest < 1 else longest}"
        )
    return int(longest)
