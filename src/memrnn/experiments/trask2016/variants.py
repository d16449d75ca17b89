"""The three ways a controller starts: the tutorial's first controller, its fix, and the
pop bias of Grefenstette et al. (2015, Appendix B) alone."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """How a variant starts and trains: its gate biases, each drawn from
    U(low, low + bias_range) (the tutorial's ``np.random.rand(1) * 0.2 + low``; a constant
    when ``bias_range`` is 0), and whether it trains the autoencoder side task."""

    push_bias: float
    pop_bias: float
    bias_range: float = 0.0
    autoencoder: bool = False

    def describe(self) -> str:
        """The biases and side task in words, e.g. "push bias U(0.1, 0.3), pop bias ..."."""

        def bias(low: float) -> str:
            return f"U({low:g}, {low + self.bias_range:g})" if self.bias_range else f"{low:+g}"

        words = f"push bias {bias(self.push_bias)}, pop bias {bias(self.pop_bias)}"
        return words + (", autoencoder side task" if self.autoencoder else "")


VARIANTS = {
    # Trask (2016), the first controller: b_d = rand * 0.2 + 0.1, b_u = rand * 0.2 - 0.1
    "naive": Variant(0.1, -0.1, bias_range=0.2),
    # Grefenstette et al. (2015), Appendix B
    "pop-bias": Variant(0.0, -1.0),
    # Trask (2016), Part 6: b_d = rand * 0.2 + 1, b_u = rand * 0.2 - 1, and the side task
    "tutorial-fix": Variant(1.0, -1.0, bias_range=0.2, autoencoder=True),
}
