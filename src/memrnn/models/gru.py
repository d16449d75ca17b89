"""The GRU baseline of Paassen, Schulz, Hammer (2021), section 4: one GRU layer and a
linear readout ("We used 256 neurons for each model in a single recurrent layer")."""

from __future__ import annotations

from typing import ClassVar

from torch import Tensor, nn

from memrnn.models.checks import InputKind, as_vectors
from memrnn.validation import check_sizes


class GRUNetwork(nn.Module):
    """A one-layer GRU and a linear readout: outputs (B, T, output_size) per step.

    Reads token ids (B, T), one-hot coded, or vectors (B, T, input_size), T >= 1, from
    the zero state.

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

    def forward(self, inputs: Tensor) -> Tensor:
        # T >= 1: torch's GRU refuses an empty sequence with an opaque RuntimeError
        states, _ = self.gru(as_vectors(inputs, self.input_size, self.readout.weight, min_steps=1))
        return self.readout(states)
