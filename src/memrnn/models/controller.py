"""A recurrent controller driving a neural Stack, Queue or DeQue.

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

from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from memrnn.models.checks import check_inputs, check_sizes
from memrnn.models.fused import MemoryRNNSequence, Shape
from memrnn.structures import MemoryState, NeuralDeque, NeuralQueue, NeuralStack
from memrnn.structures.checks import check_tensor
from memrnn.structures.layout import Layout

MemoryKind = Literal["stack", "queue", "deque"]
CellKind = Literal["rnn", "lstm"]
MEMORIES: dict[str, type[NeuralStack] | type[NeuralQueue] | type[NeuralDeque]] = {
    "stack": NeuralStack,
    "queue": NeuralQueue,
    "deque": NeuralDeque,
}
CELLS = ("rnn", "lstm")


@dataclass(frozen=True)
class MemoryRNNOutput:
    """What ``MemoryRNN.forward`` returns.

    Attributes:
        logits: (B, T, O) output logits o_t.
        push: (B, T) push strengths d_t (of the top end, for a deque).
        pop: (B, T) pop strengths u_t (of the top end, for a deque).
        push_bot: (B, T) the bottom end's push strengths for a deque, else None.
        pop_bot: (B, T) the bottom end's pop strengths for a deque, else None.
        strengths: with ``traces=True``, the memory's strengths after each step, (B, T, T)
            for a stack or queue (row i: the i-th value pushed; zero before it exists) and
            (B, T, 2T) for a deque (bottom first, centred), else None.
    """

    logits: Tensor
    push: Tensor
    pop: Tensor
    push_bot: Tensor | None = None
    pop_bot: Tensor | None = None
    strengths: Tensor | None = None


@dataclass(frozen=True)
class Carry:
    """The recurrent state H_t between steps: controller state, last read(s), memory."""

    h: Tensor
    c: Tensor | None
    read: Tensor
    memory: MemoryState


@dataclass(frozen=True)
class StepOutput:
    """One step's o'_t and gates (the bottom end's None except for a deque)."""

    o_prime: Tensor
    push: Tensor
    pop: Tensor
    push_bot: Tensor | None
    pop_bot: Tensor | None


class _Gates(nn.Module):
    """The push, pop and value projections for one end of the memory."""

    def __init__(self, in_size: int, width: int, push_bias: float, pop_bias: float) -> None:
        super().__init__()
        self.push = nn.Linear(in_size, 1)
        self.pop = nn.Linear(in_size, 1)
        self.value = nn.Linear(in_size, width)
        # Seed 000, Appendix B: a negative pop bias keeps the memory from being emptied at
        # every step early in training, which would turn it into an extra hidden layer.
        nn.init.constant_(self.push.bias, push_bias)
        nn.init.constant_(self.pop.bias, pop_bias)

    def forward(
        self, o_prime: Tensor, noise: Tensor | None = None
    ) -> tuple[Tensor, Tensor, Tensor]:
        """(value (B, m), push (B,), pop (B,)) from o'_t (B, H'); ``noise`` (B, 2), if
        given, is added to the push and pop pre-activations."""
        push = self.push(o_prime).squeeze(-1)
        pop = self.pop(o_prime).squeeze(-1)
        if noise is not None:
            push, pop = push + noise[:, 0], pop + noise[:, 1]
        push, pop = torch.sigmoid(push), torch.sigmoid(pop)
        return torch.tanh(self.value(o_prime)), push, pop


class MemoryRNN(nn.Module):
    """An Elman RNN or LSTM controller with a differentiable Stack, Queue or DeQue.

    Args:
        input_size: I, the size of each input vector i_t.
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
    """

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
    ) -> None:
        super().__init__()
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
        if not gate_noise >= 0:
            raise ValueError(f"gate_noise: expected a standard deviation >= 0, got {gate_noise}")
        if memory not in MEMORIES:
            raise ValueError(f"memory: expected one of {sorted(MEMORIES)}, got {memory!r}")
        if cell not in CELLS:
            raise ValueError(f"cell: expected one of {list(CELLS)}, got {cell!r}")
        self.input_size = input_size
        self.output_size = output_size
        self.hidden_size = hidden_size
        self.memory_width = memory_width
        self.memory_kind = memory
        self.cell_kind = cell
        self.output_hidden = output_hidden
        self.gate_noise = gate_noise
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
        self.top = _Gates(self.output_hidden, memory_width, push_bias, pop_bias)
        self.bot = (
            _Gates(
                self.output_hidden,
                memory_width,
                push_bias if bottom_push_bias is None else bottom_push_bias,
                pop_bias,
            )
            if memory == "deque"
            else None
        )
        self.out = nn.Linear(self.output_hidden, output_size)

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
        """
        cell_in = torch.cat([x, carry.read], dim=1)
        c = None
        if carry.c is not None:
            h, c = self.cell(cell_in, (carry.h, carry.c))
        else:
            h = self.cell(cell_in, carry.h)
        o_prime = torch.tanh(self.o_prime(h)) if self.o_prime is not None else h
        e = self.n_reads
        value, push, pop = self.top(o_prime, None if noise is None else noise[:, 0::e])
        push_bot = pop_bot = None
        if self.bot is not None:
            value_bot, push_bot, pop_bot = self.bot(
                o_prime, None if noise is None else noise[:, 1::e]
            )
            assert isinstance(self.memory, NeuralDeque)
            (read_top, read_bot), state = self.memory.step(
                carry.memory, value, value_bot, push, push_bot, pop, pop_bot
            )
            read = torch.cat([read_top, read_bot], dim=1)
        else:
            assert not isinstance(self.memory, NeuralDeque)
            read, state = self.memory.step(carry.memory, value, push, pop)
        return StepOutput(o_prime, push, pop, push_bot, pop_bot), Carry(h, c, read, state)

    def forward(
        self,
        inputs: Tensor,
        *,
        traces: bool = False,
        stepwise: bool = False,
        gate_noise: Tensor | None = None,
    ) -> MemoryRNNOutput:
        """Run the controller and its memory over ``inputs`` (B, T, I); with ``traces``,
        also keep the memory's strengths after every step.

        By default the whole sequence is one autograd node with a hand-written backward
        (``memrnn.models.fused``); ``stepwise=True`` runs ``step`` once per time step under
        plain autograd, the literal reference (same numbers, several times slower).
        ``gate_noise`` (B, T, 2E) is added to the gates' pre-activations (pushes of each
        end, then pops); by default it is drawn from N(0, ``self.gate_noise``^2) in
        training mode and absent in evaluation mode.
        """
        check_inputs(inputs, self.input_size, self.h0)
        b, t_len, _ = inputs.shape
        gates = 2 * self.n_reads
        if gate_noise is None and self.training and self.gate_noise > 0:
            gate_noise = self.gate_noise * torch.randn(
                b, t_len, gates, dtype=inputs.dtype, device=inputs.device
            )
        if gate_noise is not None:
            check_tensor("gate_noise", gate_noise, (b, t_len, gates), inputs.dtype,
                         inputs.device, f"(B, T, 2E) = ({b}, {t_len}, {gates})")  # fmt: skip
        if not stepwise and t_len > 0:
            return self._fused(inputs, traces, gate_noise)
        carry = self.start(b, t_len)
        steps: list[StepOutput] = []
        strengths: list[Tensor] = []
        for t in range(t_len):
            noise = gate_noise[:, t] if gate_noise is not None else None
            out, carry = self.step(carry, inputs[:, t], noise)
            steps.append(out)
            if traces:
                s = carry.memory.strengths
                pad = (0, t_len - t - 1) if self.bot is None else (t_len - t - 1,) * 2
                strengths.append(F.pad(s, pad))
        deque = self.bot is not None
        if t_len == 0:
            empty = inputs.new_zeros(b, 0)
            return MemoryRNNOutput(
                logits=inputs.new_zeros(b, 0, self.output_size),
                push=empty,
                pop=empty,
                push_bot=empty if deque else None,
                pop_bot=empty if deque else None,
                strengths=inputs.new_zeros(b, 0, 0) if traces else None,
            )

        def stacked(name: str) -> Tensor:
            return torch.stack([getattr(out, name) for out in steps], dim=1)

        return MemoryRNNOutput(
            logits=self.out(stacked("o_prime")),
            push=stacked("push"),
            pop=stacked("pop"),
            push_bot=stacked("push_bot") if deque else None,
            pop_bot=stacked("pop_bot") if deque else None,
            strengths=torch.stack(strengths, dim=1) if traces else None,
        )

    def _fused(self, inputs: Tensor, traces: bool, noise: Tensor | None) -> MemoryRNNOutput:
        """``forward`` through ``MemoryRNNSequence``."""
        b, t_len, _ = inputs.shape
        cell = self.cell
        n_in = self.input_size
        bias = cell.bias_ih + cell.bias_hh if cell.bias_ih is not None else None
        xw = F.linear(inputs, cell.weight_ih[:, :n_in], bias)
        w_rec = torch.cat([cell.weight_ih[:, n_in:], cell.weight_hh], dim=1)
        ends = [self.top] if self.bot is None else [self.top, self.bot]
        layers = [g.value for g in ends] + [g.push for g in ends] + [g.pop for g in ends]
        w_q = torch.cat([layer.weight for layer in layers])
        b_q = torch.cat([layer.bias for layer in layers])
        layout = Layout(self.memory_kind, t_len)
        shape = Shape(layout, self.hidden_size, self.memory_width, lstm=self.c0 is not None)
        o_prime, push, pop, strengths = MemoryRNNSequence.apply(
            xw,
            self.h0.expand(b, -1),
            self.c0.expand(b, -1) if self.c0 is not None else None,
            w_rec,
            self.o_prime.weight if self.o_prime is not None else None,
            self.o_prime.bias if self.o_prime is not None else None,
            w_q,
            b_q,
            noise,
            shape,
        )
        deque = self.bot is not None
        return MemoryRNNOutput(
            logits=self.out(o_prime),
            push=push[..., 0],
            pop=pop[..., 0],
            push_bot=push[..., 1] if deque else None,
            pop_bot=pop[..., 1] if deque else None,
            strengths=layout.to_paper(strengths.transpose(0, 1)) if traces else None,
        )
