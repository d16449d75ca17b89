"""The readout of Ba et al. (2016), section 4.1, shared by the models of their Table 1.

Each model computes features (B, T, F) from token ids or vectors; the readout takes them through
a hidden ReLU layer (100 units in the paper), then to ``output_size`` scores. ``forward``
reads every step out, following the convention of every model here; ``last_step`` reads
out the last step alone, as the paper's associative retrieval does (the answer comes
after the query).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Generic, TypeVar

from torch import Tensor, nn

from memrnn.models.checks import InputKind
from memrnn.validation import check_sizes

S = TypeVar("S")


def make_readout(width: int, units: int, output_size: int) -> nn.Sequential:
    """Features of size ``width`` through ``units`` ReLUs to ``output_size`` scores."""
    return nn.Sequential(nn.Linear(width, units), nn.ReLU(), nn.Linear(units, output_size))


class ReadoutRNN(nn.Module, ABC, Generic[S]):
    """A recurrent network on token ids or vectors with the readout of Ba et al. (2016).

    Subclasses compute ``run``, the features and the state after the last step, define
    ``initial_state``, and build ``self.readout`` with ``make_readout`` after their own
    layers, so that the initial weights are drawn in that order.

    ``forward(inputs, state=None)`` gives the scores of every step from ``state``
    (None: ``initial_state``); ``stream(inputs, state=None)`` also the state after the
    last step, to continue from (``memrnn.models.state``).

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
    def initial_state(self, batch_size: int) -> S:
        """The state ``state=None`` stands for, for ``batch_size`` sequences."""

    @abstractmethod
    def run(self, inputs: Tensor, state: S | None) -> tuple[Tensor, S]:
        """The features (B, T, F) of every step for token ids (B, T) or vectors
        (B, T, input_size), T >= 1, from ``state`` (None: the initial state), and the
        state after the last step.

        Raises:
            ValueError: naming ``inputs``, or ``state`` when it does not fit.
        """

    def features(self, inputs: Tensor) -> Tensor:
        """The features (B, T, F) of every step from the initial state."""
        return self.run(inputs, None)[0]

    def forward(self, inputs: Tensor, state: S | None = None) -> Tensor:
        """The scores (B, T, output_size) of every step from ``state``."""
        out: Tensor = self.readout(self.run(inputs, state)[0])
        return out

    def stream(self, inputs: Tensor, state: S | None = None) -> tuple[Tensor, S]:
        """The scores (B, T, output_size) of every step from ``state``, and the state
        after the last step."""
        features, state = self.run(inputs, state)
        out: Tensor = self.readout(features)
        return out, state

    def last_step(self, inputs: Tensor) -> Tensor:
        """The scores (B, output_size) after the last step alone."""
        out: Tensor = self.readout(self.features(inputs)[:, -1])
        return out
