"""``nn.LSTM`` under CPU autocast on CPUs where torch has no lower-precision LSTM.

Under ``torch.autocast("cpu", dtype=torch.bfloat16)`` torch hands ``nn.LSTM`` to oneDNN
in bfloat16, and on a CPU without AVX-512 (an AMD Zen 3, say) oneDNN has no such LSTM:
torch raises "could not create a primitive descriptor for the LSTM forward propagation
primitive" (pytorch/pytorch#88136), for a plain ``nn.LSTM`` as for ours; on an Intel
Xeon with AVX512-FP16, oneDNN has a float16 LSTM for inference but none for training. There
``run_lstm`` runs the LSTM in float32 with autocast off, as memrnn's own recurrences
always run under autocast; the products around it keep the lower precision. Where torch
can, and outside CPU autocast, it is ``lstm(inputs, state)`` and changes no number.
"""

from __future__ import annotations

import functools

import torch
from torch import Tensor, nn

from memrnn.structures.precision import in_full_precision, widened


@functools.cache
def lowered_lstm_runs(dtype: torch.dtype) -> bool:
    """Whether torch trains ``nn.LSTM`` under CPU autocast to ``dtype`` on this CPU (tried
    once per process on a one-unit LSTM, with gradients on: oneDNN may have the inference
    primitive and not the training one)."""
    probe = nn.LSTM(1, 1)
    try:
        with torch.enable_grad(), torch.autocast("cpu", dtype=dtype):
            probe(torch.zeros(1, 1, 1))
    except RuntimeError:
        return False
    return True


def run_lstm(
    lstm: nn.LSTM, inputs: Tensor, state: tuple[Tensor, Tensor] | None = None
) -> tuple[Tensor, tuple[Tensor, Tensor]]:
    """``lstm(inputs, state)``; in float32 with autocast off where CPU autocast is on and
    torch has no LSTM in its dtype on this CPU (``lowered_lstm_runs``)."""
    if (
        inputs.device.type != "cpu"
        or not torch.is_autocast_enabled("cpu")
        or lowered_lstm_runs(torch.get_autocast_dtype("cpu"))
    ):
        return lstm(inputs, state)
    wide = None if state is None else (widened(state[0]), widened(state[1]))
    out: tuple[Tensor, tuple[Tensor, Tensor]] = in_full_precision(lstm, widened(inputs), wide)
    return out
