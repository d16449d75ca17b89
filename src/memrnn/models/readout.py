"""The readout of Ba et al. (2016), section 4.1, shared by the models of their Table 1.

Each model computes features (B, T, F) from token ids or vectors; the readout takes them through
a hidden ReLU layer (100 units in the paper), then to ``output_size`` scores. ``forward``
reads every step out, following the convention of every model here; ``last_step`` reads
out the last step alone, as the paper's associative retrieval does (the answer comes
after the query).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from torch import Tensor, nn

from memrnn.models.checks import InputKind
from memrnn.validation import check_sizes


def make_readout(width: int, units: int, output_size: int) -> nn.Sequential:
    """Features of size ``width`` through ``units`` ReLUs to ``output_size`` scores."""
    return nn.Sequential(nn.Linear(width, units), nn.ReLU(), nn.Linear(units, output_size))


class ReadoutRNN(nn.Module, ABC):
    """A recurrent network on token ids or vectors with the readout of Ba et al. (2016).

    Subclasses compute ``features`` and build ``self.readout`` with ``make_readout``
    after their own layers, so that the initial weights are drawn in that order.

    Args:
        input_size, output_size: the input vocabulary (or the width of input vectors)
            and the output classes.
        hidden_size: R, the recurrent units.
        readout: the units of the readout's hidden ReLU layer (100 in the paper).
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")
    readout: nn.Sequential

    def __init__(self, input_size: int, output_size: int, hidden_size: int, readout: int) -> None:
        super().__init__()
        check_sizes(input_size=input_size, output_size=output_size, hidden_size=hidden_size,
                    readout=readout)  # fmt: skip
        self.input_size, self.output_size, self.hidden_size = input_size, output_size, hidden_size

    @abstractmethod
    def features(self, inputs: Tensor) -> Tensor:
        """The features (B, T, F) of every step for token ids (B, T) or vectors
        (B, T, input_size), T >= 1."""

    def forward(self, inputs: Tensor) -> Tensor:
        """The scores (B, T, output_size) of every step."""
        out: Tensor = self.readout(self.features(inputs))
        return out

    def last_step(self, inputs: Tensor) -> Tensor:
        """The scores (B, output_size) after the last step alone."""
        out: Tensor = self.readout(self.features(inputs)[:, -1])
        return out
