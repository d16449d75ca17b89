"""``MemoryRNN``: a recurrent controller driving a neural Stack, Queue or DeQue.

Grefenstette et al. (2015), section 3.4. By default with the extra layer of Trask's
tutorial (Trask 2016, *Hacking DeepMind's Neural Stack*, "Known Deviations" item 11): the
controller output h_t passes through o'_t = tanh(W h_t + b) before the memory gates and
the output are read off it; ``o_prime_layer=False`` reads them off o'_t = h_t, as the
paper does.

Per step t, with input i_t:

    h_t            = cell([i_t ; r_{t-1}], h_{t-1})        (r_{t-1}: both reads for a deque)
    o'_t           = tanh(W_{o'} h_t + b_{o'})
    d_t, u_t       = sigmoid(W_d o'_t + b_d), sigmoid(W_u o'_t + b_u)     push, pop
    v_t            = tanh(W_v o'_t + b_v)
    r_t, memory_t  = memory.step(memory_{t-1}, v_t, d_t, u_t)
    o_t            = W_o o'_t + b_o                        logits, for cross-entropy

r_0 and the memory start at zero; h_0 (and an LSTM's c_0) are learned.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import torch
from torch import Tensor, nn

from memrnn.models.checks import InputKind, as_vectors, check_inputs
from memrnn.models.controller.carry import Carry, StepOutput
from memrnn.models.controller.gates import MemoryGates
from memrnn.models.controller.sequence import run_fused, run_stepwise, stream_fused
from memrnn.models.state import check_part, check_type
from memrnn.models.trace import Trace
from memrnn.structures import MemoryState, NeuralDeque, NeuralQueue, NeuralStack
from memrnn.structures.checks import check_tensor
from memrnn.validation import check_choice, check_flag, check_float, check_sizes

MemoryKind = Literal["stack", "queue", "deque"]
CellKind = Literal["rnn", "lstm"]
MEMORIES: dict[str, type[NeuralStack] | type[NeuralQueue] | type[NeuralDeque]] = {
    "stack": NeuralStack,
    "queue": NeuralQueue,
    "deque": NeuralDeque,
}
CELLS = ("rnn", "lstm")


class MemoryRNN(nn.Module):
    """An Elman RNN or LSTM controller with a differentiable Stack, Queue or DeQue.

    Reads vectors i_t (B, T, I), or token ids (B, T) as one-hot vectors; ``forward``
    gives the logits o_t (B, T, O), ``trace`` also the gates. As with ``nn.LSTM``,
    ``forward(inputs, state)`` starts from a state and ``stream(inputs, state)`` also
    returns the state after the last step: a ``Carry`` of h_t, c_t, the last reads and
    the memory, whose room grows as the stream goes on. ``state=None`` is
    ``initial_state``: learned h_0 (and c_0), zero reads, an empty memory. Both take the
    whole-sequence path of ``trace``, its memory starting from the carried one.

    Args:
        input_size: I, the size of each input vector i_t (the input vocabulary).
        output_size: O, the number of output logits.
        hidden_size: the size of the controller state h_t.
        memory_width: m, the width of the memory's values.
        memory: "stack", "queue" or "deque". A deque has a second set of push, pop and
            value projections for its bottom end, and both reads feed the controller.
        cell: "rnn" (tanh Elman, ``nn.RNNCell``) or "lstm" (``nn.LSTMCell``).
        output_hidden: the size of o'_t; defaults to ``hidden_size``.
        o_prime_layer: True for o'_t = tanh(W h_t + b) (the tutorial), False for
            o'_t = h_t (the paper; ``output_hidden`` must then equal ``hidden_size``).
        push_bias: the initial bias b_d of every push gate.
        bottom_push_bias: a deque's bottom end's initial push bias (default
            ``push_bias``). Different biases at the two ends break their symmetry.
        pop_bias: the initial bias b_u of every pop gate (Grefenstette et al. 2015,
            Appendix B, recommend -1).
        gate_noise: in training mode, the standard deviation of Gaussian noise added to
            every push and pop pre-activation (0: none, the paper's model). Not in the
            paper: a training aid that drives the gates towards 0 and 1, so that small
            leaks, harmless at the training lengths, do not pile up on longer inputs.
        round_gates: in evaluation mode, round every push and pop strength to 0 or 1
            (0.5 to 0), running ``step`` at each time step as ``stepwise=True`` does.
            Not in the paper: a model whose gates are near 0 and 1 then pushes and pops
            whole values, and a leak that would pile up on longer inputs is gone.
            Training is unchanged; ``memrnn fit`` turns it on where the held-out pairs
            do as well.
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")

    def __init__(
        self,
        input_size: int,
        output_size: int,
        hidden_size: int,
        memory_width: int,
        *,
        memory: MemoryKind = "stack",
        cell: CellKind = "rnn",
        output_hidden: int | None = None,
        o_prime_layer: bool = True,
        push_bias: float = 0.0,
        pop_bias: float = 0.0,
        gate_noise: float = 0.0,
        bottom_push_bias: float | None = None,
        round_gates: bool = False,
    ) -> None:
        super().__init__()
        check_flag("o_prime_layer", o_prime_layer)
        check_flag("round_gates", round_gates)
        output_hidden = hidden_size if output_hidden is None else output_hidden
        if not o_prime_layer and output_hidden != hidden_size:
            raise ValueError(
                f"output_hidden: without the o' layer o'_t is h_t, of size hidden_size = "
                f"{hidden_size}; got {output_hidden}"
            )
        check_sizes(
            input_size=input_size,
            output_size=output_size,
            hidden_size=hidden_size,
            memory_width=memory_width,
            output_hidden=output_hidden,
        )
        check_float("gate_noise", gate_noise, 0)  # a standard deviation
        check_float("push_bias", push_bias)
        check_float("pop_bias", pop_bias)
        if bottom_push_bias is not None:
            check_float("bottom_push_bias", bottom_push_bias)
        check_choice("memory", memory, sorted(MEMORIES))
        check_choice("cell", cell, CELLS)
        self.input_size = input_size
        self.output_size = output_size
        self.hidden_size = hidden_size
        self.memory_width = memory_width
        self.memory_kind = memory
        self.cell_kind = cell
        self.output_hidden = output_hidden
        self.gate_noise = gate_noise
        self.round_gates = round_gates
        # Gates come out of sigmoids, so the memory's range check would only cost a sync.
        self.memory = MEMORIES[memory](validate=False)
        self.n_reads = 2 if memory == "deque" else 1

        cell_in = input_size + self.n_reads * memory_width
        self.cell: nn.RNNCell | nn.LSTMCell
        if cell == "rnn":
            self.cell = nn.RNNCell(cell_in, hidden_size, nonlinearity="tanh")
        else:
            self.cell = nn.LSTMCell(cell_in, hidden_size)
        self.h0 = nn.Parameter(torch.zeros(hidden_size))
        self.c0 = nn.Parameter(torch.zeros(hidden_size)) if cell == "lstm" else None
        self.o_prime = nn.Linear(hidden_size, self.output_hidden) if o_prime_layer else None
        self.top = MemoryGates(self.output_hidden, memory_width, push_bias, pop_bias)
        self.bot = (
            MemoryGates(
                self.output_hidden,
                memory_width,
                push_bias if bottom_push_bias is None else bottom_push_bias,
                pop_bias,
            )
            if memory == "deque"
            else None
        )
        self.out = nn.Linear(self.output_hidden, output_size)

    def extra_repr(self) -> str:
        # what the forward reads besides the layers' sizes (grouping compares reprs)
        return (
            f"memory={self.memory_kind!r}, cell={self.cell_kind!r}, "
            f"gate_noise={self.gate_noise}, round_gates={self.round_gates}"
        )

    def start(self, batch: int, capacity: int) -> Carry:
        """H_0 for ``batch`` sequences: learned h_0 (and c_0), zero reads, an empty memory
        with room for ``capacity`` steps."""
        dtype, device = self.h0.dtype, self.h0.device
        return Carry(
            self.h0.expand(batch, -1),
            self.c0.expand(batch, -1) if self.c0 is not None else None,
            self.h0.new_zeros(batch, self.n_reads * self.memory_width),
            self.memory.initial_state(
                batch, self.memory_width, device=device, dtype=dtype, capacity=max(capacity, 1)
            ),
        )

    def step(
        self, carry: Carry, x: Tensor, noise: Tensor | None = None
    ) -> tuple[StepOutput, Carry]:
        """One step from H_{t-1} on the input i_t (B, I): o'_t, the gates, and H_t.

        ``noise`` (B, 2E), if given, is added to the gates' pre-activations, ordered as
        ``forward``'s ``gate_noise``: the pushes of each end (top first), then the pops.
        With ``round_gates``, in evaluation mode, the gates are rounded to 0 or 1.

        Raises:
            ValueError: naming ``x``, whose shape, dtype and device are checked (no
                device read back).
        """
        check_inputs(x, self.input_size, self.h0, name="x", one_step=True)
        cell_in = torch.cat([x, carry.read], dim=1)
        c = None
        if carry.c is not None:
            h, c = self.cell(cell_in, (carry.h, carry.c))
        else:
            h = self.cell(cell_in, carry.h)
        o_prime = torch.tanh(self.o_prime(h)) if self.o_prime is not None else h
        e = self.n_reads
        memory = carry.memory
        rounded = self.rounding()
        top = self.top(o_prime, None if noise is None else noise[:, 0::e], rounded)
        value, push, pop = _in_memory_dtype(memory, *top)
        push_bot = pop_bot = None
        if self.bot is not None:
            bot = self.bot(o_prime, None if noise is None else noise[:, 1::e], rounded)
            value_bot, push_bot, pop_bot = _in_memory_dtype(memory, *bot)
            assert isinstance(self.memory, NeuralDeque)
            (read_top, read_bot), state = self.memory.step(
                carry.memory, value, value_bot, push, push_bot, pop, pop_bot
            )
            read = torch.cat([read_top, read_bot], dim=1)
        else:
            assert not isinstance(self.memory, NeuralDeque)
            read, state = self.memory.step(carry.memory, value, push, pop)
        return StepOutput(o_prime, push, pop, push_bot, pop_bot), Carry(h, c, read, state)

    def rounding(self) -> bool:
        """Whether the gates are rounded now: ``round_gates`` and evaluation mode."""
        return self.round_gates and not self.training

    def initial_state(self, batch_size: int) -> Carry:
        """The state ``state=None`` stands for: learned h_0 (and c_0), zero reads and an
        empty memory, whose room grows as it fills."""
        return self.start(batch_size, 1)

    def forward(
        self,
        inputs: Tensor,
        state: Carry | None = None,
        *,
        stepwise: bool = False,
        gate_noise: Tensor | None = None,
    ) -> Tensor:
        """The logits o_t (B, T, O) for ``inputs`` from ``state`` (``stream``; None: the
        whole sequence from ``initial_state``, as ``trace``); the keywords are ``trace``'s."""
        if state is None:
            return self.trace(inputs, stepwise=stepwise, gate_noise=gate_noise).outputs
        return self.stream(inputs, state, stepwise=stepwise, gate_noise=gate_noise)[0]

    def stream(
        self,
        inputs: Tensor,
        state: Carry | None = None,
        *,
        stepwise: bool = False,
        gate_noise: Tensor | None = None,
    ) -> tuple[Tensor, Carry]:
        """The logits o_t (B, T, O) for ``inputs`` from ``state`` (None:
        ``initial_state``) and the state after the last step, to continue from: a
        sequence run in chunks, each from the last one's state, gives the logits of the
        whole, and the gradients flow back through the state unless it is detached.
        ``stepwise`` and ``gate_noise`` as for ``trace``: by default one autograd node
        whose memory starts with the carried one's rows.

        Raises:
            ValueError: naming ``inputs``, ``gate_noise``, or ``state``: not a ``Carry``
                of this model's sizes for the batch, dtype and device of ``inputs``.
        """
        inputs, gate_noise = self._prepared(inputs, gate_noise)
        b, t_len, _ = inputs.shape
        carry = self.start(b, t_len) if state is None else self._checked(state, b)
        if stepwise or t_len == 0 or self.rounding():
            trace, carry = run_stepwise(self, inputs, False, gate_noise, carry)
        else:
            trace, carry = stream_fused(self, inputs, gate_noise, carry)
        return trace.outputs, carry

    def _checked(self, state: object, batch: int) -> Carry:
        expected = f"a MemoryRNN's Carry (h, c, read, memory) for a batch of {batch}"
        check_type(state, Carry, expected)
        assert isinstance(state, Carry)
        hidden, like = (batch, self.hidden_size), self.h0
        check_part("state.h", state.h, hidden, "(B, H)", like)
        if self.c0 is not None:
            check_part("state.c", state.c, hidden, "(B, H)", like)
        elif state.c is not None:
            raise ValueError("state.c: an Elman cell has no c; expected None")
        reads = (batch, self.n_reads * self.memory_width)
        check_part("state.read", state.read, reads, "(B, E m)", like)
        memory = state.memory
        check_type(memory, MemoryState, "a Carry whose memory is a MemoryState")
        check_part("state.memory.strengths", memory.strengths, (batch, None), "(B, n)", like)
        values = (batch, memory.size, self.memory_width)
        check_part("state.memory.values", memory.values, values, "(B, n, m)", like)
        return state

    def _prepared(self, inputs: Tensor, gate_noise: Tensor | None) -> tuple[Tensor, Tensor | None]:
        """The input vectors (B, T, I) and the gate noise, drawn or checked (``trace``)."""
        inputs = as_vectors(inputs, self.input_size, self.h0)
        b, t_len, _ = inputs.shape
        gates = 2 * self.n_reads
        if gate_noise is None and self.training and self.gate_noise > 0:
            gate_noise = self.gate_noise * torch.randn(
                b, t_len, gates, dtype=inputs.dtype, device=inputs.device
            )
        if gate_noise is not None:
            check_tensor("gate_noise", gate_noise, (b, t_len, gates), inputs.dtype,
                         inputs.device, f"(B, T, 2E) = ({b}, {t_len}, {gates})")  # fmt: skip
        return inputs, gate_noise

    def trace(
        self,
        inputs: Tensor,
        *,
        strengths: bool = False,
        stepwise: bool = False,
        gate_noise: Tensor | None = None,
    ) -> Trace:
        """Run the controller and its memory over ``inputs``, vectors (B, T, I) or token
        ids (B, T) read as one-hot vectors, from ``initial_state``: the logits and the
        gates of every step and, with ``strengths``, the memory's strengths after every
        step.

        By default the whole sequence is one autograd node with a hand-written backward
        (``memrnn.models.controller.fused``); ``stepwise=True`` runs ``step`` once per
        time step under plain autograd, the literal reference (same numbers, several
        times slower), and so does a model that rounds its gates. ``gate_noise``
        (B, T, 2E) is added to the gates' pre-activations (pushes of each end, then
        pops); by default it is drawn from
        N(0, ``self.gate_noise ** 2``) in training mode and absent in evaluation mode.
        """
        inputs, gate_noise = self._prepared(inputs, gate_noise)
        if stepwise or inputs.shape[1] == 0 or self.rounding():
            return run_stepwise(self, inputs, strengths, gate_noise)[0]
        return run_fused(self, inputs, strengths, gate_noise)


def _in_memory_dtype(memory: MemoryState, *tensors: Tensor) -> tuple[Tensor, ...]:
    """The gates and values in the memory's dtype: autocast computes them in lower
    precision, and the memory's strengths keep full precision (``structures.precision``);
    otherwise they are the model's dtype already and nothing changes."""
    if not torch.is_autocast_enabled(memory.device.type):
        return tensors
    return tuple(x.to(memory.dtype) for x in tensors)
