"""The GRU baseline of Paassen, Schulz, Hammer (2021), section 4: one GRU layer and a
linear readout ("We used 256 neurons for each model in a single recurrent layer")."""

from __future__ import annotations

from typing import ClassVar

from torch import Tensor, nn

from memrnn.models.checks import InputKind, as_vectors
from memrnn.models.state import check_part
from memrnn.validation import check_sizes


class GRUNetwork(nn.Module):
    """A one-layer GRU and a linear readout: outputs (B, T, output_size) per step.

    Reads token ids (B, T), one-hot coded, or vectors (B, T, input_size), T >= 1, from
    an initial state, ``nn.GRU``'s h_0 (1, B, H) (None: zero), as ``forward(inputs,
    state)``; ``stream(inputs, state)`` also returns the state after the last step,
    ``nn.GRU``'s h_n, to feed the next chunk (``memrnn.models.state``).

    Args:
        input_size: the input vocabulary or feature count.
        output_size: the outputs per step (logits or values).
        hidden_size: the GRU's units (256 in the paper).
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")

    def __init__(self, input_size: int, output_size: int, hidden_size: int = 256) -> None:
        super().__init__()
        check_sizes(input_size=input_size, output_size=output_size, hidden_size=hidden_size)
        self.input_size, self.output_size = input_size, output_size
        self.gru = nn.GRU(input_size, hidden_size, batch_first=True)
        self.readout = nn.Linear(hidden_size, output_size)

    def initial_state(self, batch_size: int) -> Tensor:
        """nn.GRU's zero h_0 (1, B, H)."""
        return next(self.gru.parameters()).new_zeros(1, batch_size, self.gru.hidden_size)

    def forward(self, inputs: Tensor, state: Tensor | None = None) -> Tensor:
        """The outputs (B, T, output_size) of every step from ``state``."""
        return self.stream(inputs, state)[0]

    def stream(self, inputs: Tensor, state: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """The outputs (B, T, output_size) of every step from ``state`` (nn.GRU's h_0,
        (1, B, H); None: zero), and h_n, the state after the last step.

        Raises:
            ValueError: naming ``inputs``, or ``state`` when it does not fit.
        """
        # T >= 1: torch's GRU refuses an empty sequence with an opaque RuntimeError
        vectors = as_vectors(inputs, self.input_size, self.readout.weight, min_steps=1)
        if state is not None:
            shape = (1, vectors.shape[0], self.gru.hidden_size)
            check_part("state", state, shape, "(1, B, H)", self.readout.weight)
        states, last = self.gru(vectors, state)
        return self.readout(states), last
