"""memrnn's own models in the registry (``memrnn.models.registry``), with small sizes
as their defaults:

- ``lstm``: ``OneHotLSTM``, the LSTM of Ba et al. (2016), Table 1;
- ``deep_lstm``: ``DeepLSTM``, the Deep LSTM of Grefenstette et al. (2015);
- ``stack_lstm``, ``queue_lstm``, ``deque_lstm``: ``MemoryAugmentedLSTM``, the Stack-,
  Queue- and DeQue-LSTM of Grefenstette et al. (2015);
- ``memory_rnn``: ``MemoryRNN``, the controller of Trask (2016) with any of the three
  memories and an Elman or LSTM cell;
- ``stack_rnn``: ``SuperpositionStackRNN``, the Stack-RNN of Joulin and Mikolov (2015);
- ``fast_weights``: ``FastWeightsRNN``, the Fast Weights RNN of Ba et al. (2016);
- ``rnn``: ``ElmanRNN``, the tanh RNN of Deletang et al. (2023), Table 2;
- ``irnn``: ``IRNN`` (Le et al. 2015);
- ``alstm``: ``AttentionLSTM``, the A-LSTM of Ba et al. (2016), Table 1;
- ``gru``: ``GRUNetwork``, the GRU baseline of Paassen, Schulz, Hammer (2021);
- ``deep_stack_machine``: ``DeepStackMachineNetwork``, their deep stack machine;
- ``tape_rnn``: ``TapeRNN``, the Tape-RNN of Deletang et al. (2023);
- ``transformer``: ``CausalTransformer``, the Transformer encoder of Deletang et al.
  (2023), causal by default, with their choice of positional encoding (sin/cos by
  default).
"""

from __future__ import annotations

from memrnn.models.baselines import IRNN, AttentionLSTM, ElmanRNN, OneHotLSTM
from memrnn.models.controller import MemoryRNN
from memrnn.models.fast_weights import FastWeightsRNN
from memrnn.models.gru import GRUNetwork
from memrnn.models.registry import register_model
from memrnn.models.stack_machine import DeepStackMachineNetwork
from memrnn.models.stack_rnn import SuperpositionStackRNN
from memrnn.models.tape_rnn import TapeRNN
from memrnn.models.transducer import DeepLSTM, MemoryAugmentedLSTM
from memrnn.models.transformer import CausalTransformer

HIDDEN = {"hidden_size": 32}
TRANSDUCER = {"hidden_size": 32, "embedding": 16}
TRANSFORMER = {"d_model": 32, "layers": 2, "heads": 4, "feedforward": 64, "dropout": 0.0}

register_model("lstm", OneHotLSTM, defaults=HIDDEN)
register_model("deep_lstm", DeepLSTM, defaults={**TRANSDUCER, "layers": 2})
for memory in ("stack", "queue", "deque"):
    register_model(
        f"{memory}_lstm",
        MemoryAugmentedLSTM,
        fixed={"memory": memory},
        defaults={**TRANSDUCER, "memory_width": 16},
    )
register_model("memory_rnn", MemoryRNN, defaults={**HIDDEN, "memory_width": 16})
register_model(
    "stack_rnn", SuperpositionStackRNN, defaults={**HIDDEN, "stack_width": 8, "stack_depth": 32}
)
register_model("fast_weights", FastWeightsRNN, defaults=HIDDEN)
register_model("rnn", ElmanRNN, defaults=HIDDEN)
register_model("irnn", IRNN, defaults=HIDDEN)
register_model("alstm", AttentionLSTM, defaults=HIDDEN)
register_model("gru", GRUNetwork, defaults=HIDDEN)
register_model("deep_stack_machine", DeepStackMachineNetwork, defaults=HIDDEN)
register_model("tape_rnn", TapeRNN, defaults={**HIDDEN, "cell_size": 8, "tape_size": 40})
register_model("transformer", CausalTransformer, defaults=TRANSFORMER)
