"""The input layer of the models that embed token ids, which reads vectors as well.

An embedding E (V, d) looks up row E[k] for token id k. The same E as a linear layer
without bias maps a vector x (V,) to x E, and a one-hot vector for k to E[k] exactly
(every other term is a zero), so a model built on ``InputEmbedding`` reads a task's
token ids and its vectors (Paassen, Schulz, Hammer 2021 code their inputs as one-hot
rows) with one set of weights, and gives the same outputs for ids and their one-hot
vectors. Token ids take ``nn.Embedding``'s path unchanged.
"""

from __future__ import annotations

from torch import Tensor, nn

from memrnn.models.checks import check_inputs, is_token_ids
from memrnn.structures.checks import check_token_ids


class InputEmbedding(nn.Embedding):
    """An ``nn.Embedding`` of ``num_embeddings`` token ids that also reads vectors of
    that width: ids (any shape) give their rows of ``weight``, float vectors (..., V)
    give ``vectors @ weight``. Its weights and their initialisation are
    ``nn.Embedding``'s."""

    def forward(self, inputs: Tensor) -> Tensor:
        """The embedded ``inputs``, unchecked (for one step of a recurrent model)."""
        if inputs.is_floating_point():
            return inputs @ self.weight
        out: Tensor = super().forward(inputs)
        return out

    def sequences(self, inputs: object) -> Tensor:
        """The embedded batch (B, T, d) of token ids (B, T) or vectors (B, T, V), T >= 1,
        after checking them (ids in range; vectors of the weight's dtype and device).

        Raises:
            ValueError: naming ``tokens`` or ``inputs``.
        """
        if is_token_ids(inputs):
            check_token_ids(inputs, self.num_embeddings, min_steps=1)
            return self(inputs)
        return self(check_inputs(inputs, self.num_embeddings, self.weight, min_steps=1))
