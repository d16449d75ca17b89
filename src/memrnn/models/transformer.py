"""A Transformer encoder (Vaswani et al. 2017) as a per-step sequence model, the
Transformer of Deletang et al. (2023), section 4, with their choice of positional
encoding (``memrnn.models.positional``).

Token ids (or vectors) are embedded, given position information, and read by a stack of
PyTorch's own ``nn.TransformerEncoderLayer``; a linear readout gives the outputs of every
step. By default under a causal mask, so that the output at step t depends on steps
0 .. t alone, as a recurrent model's does; ``causal=False`` is Deletang et al.'s encoder,
every step reading the whole sequence (their answer steps follow the whole input).

Of the encodings Deletang et al. compare, the rotary (Su et al. 2021) and relative (Dai et
al. 2019) ones change the attention's scores from inside, which PyTorch's layers do not
allow without writing the attention out; they are not offered.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import torch
from torch import Tensor, nn

from memrnn.models.checks import InputKind
from memrnn.models.embedding import InputEmbedding
from memrnn.models.positional import alibi_bias, causal_bias, sinusoidal_encoding
from memrnn.validation import check_choice, check_flag, check_float, check_sizes

Positional = Literal["none", "sinusoidal", "alibi"]
POSITIONAL: tuple[Positional, ...] = ("none", "sinusoidal", "alibi")


class CausalTransformer(nn.Module):
    """A Transformer encoder, causal by default, and a linear readout: outputs
    (B, T, output_size).

    Reads token ids (B, T) or vectors (B, T, input_size), T >= 1, through one embedding
    (``InputEmbedding``: a one-hot vector gives its token's row). There is no fixed
    largest length: every positional encoding here is computed for the length it gets.
    The default sizes are those of Deletang et al.'s released code: width 64, 5 layers,
    8 heads, a feed-forward network 4 times wider, dropout 0.1.

    Args:
        input_size: the input vocabulary or feature count.
        output_size: the outputs per step (logits or values).
        d_model: the width of the embeddings and of every layer.
        layers: the encoder layers.
        heads: the attention heads per layer; they must divide ``d_model``.
        feedforward: the units of each layer's feed-forward network.
        dropout: the dropout rate of every layer, in [0, 1).
        positional: the position information (Deletang et al. 2023, section 4):
            ``"none"``, the causal mask alone; ``"sinusoidal"``, the sin/cos encoding of
            Vaswani et al. (2017) added to the embeddings; ``"alibi"``, the linear
            attention biases of Press et al. (2022).
        norm_first: layer normalisation before each sub-layer (pre-LN, which trains
            without a learning-rate warm-up, Xiong et al. 2020) and once after the last
            layer; False for the post-LN layers of Vaswani et al. (2017).
        causal: each step attends to itself and the steps before it alone; False:
            to every step (padding too, as in Deletang et al.'s encoder).
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")

    def __init__(
        self,
        input_size: int,
        output_size: int,
        d_model: int = 64,
        layers: int = 5,
        heads: int = 8,
        feedforward: int = 256,
        *,
        dropout: float = 0.1,
        positional: Positional = "sinusoidal",
        norm_first: bool = True,
        causal: bool = True,
    ) -> None:
        super().__init__()
        check_sizes(input_size=input_size, output_size=output_size, d_model=d_model,
                    layers=layers, heads=heads, feedforward=feedforward)  # fmt: skip
        if d_model % heads:
            raise ValueError(f"d_model: expected a multiple of heads={heads}, got {d_model}")
        check_float("dropout", dropout, 0.0, below=1.0)
        self.positional = check_choice("positional", positional, POSITIONAL)
        check_flag("norm_first", norm_first)
        self.causal = check_flag("causal", causal)
        self.input_size, self.output_size, self.heads = input_size, output_size, heads
        self.embedding = InputEmbedding(input_size, d_model)
        # torch.relu, not "relu": PyTorch's inference fast path, taken for the activations
        # it recognises, reads a float attention mask as a boolean one and so would drop
        # ALiBi's biases in eval mode (pytorch/pytorch#118628); its general path adds them.
        layer = nn.TransformerEncoderLayer(
            d_model, heads, feedforward, dropout, torch.relu, batch_first=True,
            norm_first=norm_first,
        )  # fmt: skip
        self.encoder = nn.TransformerEncoder(
            layer,
            layers,
            norm=nn.LayerNorm(d_model) if norm_first else None,
            enable_nested_tensor=False,  # no padding mask, so nothing to pack
        )
        self.readout = nn.Linear(d_model, output_size)

    def forward(self, inputs: Tensor) -> Tensor:
        """The outputs (B, T, output_size) of every step.

        Raises:
            ValueError: naming ``inputs``: a shape, dtype or device that does not fit,
                or a token id outside the vocabulary.
        """
        x = self.embedding.sequences(inputs)
        batch, steps, width = x.shape
        dtype, device = x.dtype, x.device
        if self.positional == "sinusoidal":
            x = x + sinusoidal_encoding(steps, width, dtype=dtype, device=device)
        mask: Tensor | None = None
        is_causal = False  # whether ``mask`` is the causal mask alone
        if self.positional == "alibi":
            # the (B * heads, T, T) mask the attention takes, row b * heads + h for head h
            bias = alibi_bias(self.heads, steps, causal=self.causal, dtype=dtype, device=device)
            mask = bias.expand(batch, -1, -1, -1).reshape(batch * self.heads, steps, steps)
        elif self.causal:
            mask, is_causal = causal_bias(steps, dtype=dtype, device=device), True
        states = self.encoder(x, mask=mask, is_causal=is_causal)
        out: Tensor = self.readout(states)
        return out
