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

from memrnn.models.checks import check_inputs, check_token_ids, is_token_ids
from memrnn.validation import check_sizes


class InputEmbedding(nn.Embedding):
    """An ``nn.Embedding`` of ``num_embeddings`` token ids that also reads vectors of
    that width: ids (any shape) give their rows of ``weight``, float vectors (..., V)
    give ``vectors @ weight``. Its weights and their initialisation are
    ``nn.Embedding``'s.

    Args:
        num_embeddings: V, the token ids (and the width of input vectors), >= 1.
        embedding_dim: d, the width of each embedding, >= 1.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int) -> None:
        check_sizes(num_embeddings=num_embeddings, embedding_dim=embedding_dim)
        super().__init__(num_embeddings, embedding_dim)

    def forward(self, inputs: Tensor) -> Tensor:
        """The embedded ``inputs``, unchecked (``sequences`` and ``one_step`` check)."""
        if inputs.is_floating_point():
            return inputs @ self.weight
        out: Tensor = super().forward(inputs)
        return out

    def sequences(self, inputs: object) -> Tensor:
        """The embedded batch (B, T, d) of token ids (B, T) or vectors (B, T, V), T >= 1,
        after checking them (ids in range; vectors of the weight's dtype and device).

        Raises:
            ValueError: naming ``inputs``.
        """
        if is_token_ids(inputs):
            return self(check_token_ids(inputs, self.num_embeddings, name="inputs", min_steps=1))
        return self(check_inputs(inputs, self.num_embeddings, self.weight, min_steps=1))

    def one_step(self, inputs: object, name: str = "tokens") -> Tensor:
        """The embedded inputs (B, d) of one step, token ids (B,) or vectors (B, V), after
        checking them as ``sequences`` does.

        Raises:
            ValueError: naming ``name``, the caller's argument.
        """
        if is_token_ids(inputs):
            ids = check_token_ids(inputs, self.num_embeddings, name=name, one_step=True)
            return self(ids)
        vectors = check_inputs(inputs, self.num_embeddings, self.weight, name=name, one_step=True)
        return self(vectors)
