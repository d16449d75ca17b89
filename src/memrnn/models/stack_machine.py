"""The network of the deep stack machine of Paassen, Schulz, Hammer (2021), section 4.

"A deep version of our reservoir stack machine (DSM), where we replace the reservoir
with a GRU." One ``nn.GRUCell`` reads the input (state h_t) and, from the zero state,
the stack bottom to top (state g_t), as the reservoir does in the reservoir stack
machine; four linear heads on (h_t, g_t) take the places of its four classifiers:

- c_pop: how many symbols to pop (0 .. ``max_pop``);
- c_push: which nonterminal to push, class 0 for none (class k + 1 pushes code k);
- c_shift: whether the input symbol goes onto the stack after the actions;
- c_out: the output y_t.

``forward`` runs the machine as Algorithm 2 does, with each head's argmax as its
decision: the gradient reaches the cell and c_out along the path taken, but not the
decisions. Training by teacher forcing of the stack actions, which trains all four
heads, is ``memrnn.estimators.DeepStackMachine``'s.

As the reservoir stack machine's ``StackEncoder`` does, ``GRUStack`` keeps the state of
every stack prefix: a pop restores the state of the shorter prefix and a push is one
cell step, where Algorithm 2 re-encodes the whole stack after each pop. Both give the
same g.
"""

from __future__ import annotations

from typing import ClassVar

import torch
from torch import Tensor, nn

from memrnn.models.checks import InputKind, as_vectors
from memrnn.validation import check_int, check_sizes, is_int


class GRUStack:
    """A stack of symbol vectors with the GRU state g of every prefix kept.

    ``state`` is the cell's state after reading the stack bottom to top from zeros,
    (1, hidden). Used with gradients in training and without in prediction.
    """

    def __init__(self, cell: nn.GRUCell) -> None:
        self.cell = cell
        self._states = [cell.weight_hh.new_zeros(1, cell.hidden_size)]  # after i symbols

    def __len__(self) -> int:
        return len(self._states) - 1

    @property
    def state(self) -> Tensor:
        return self._states[-1]

    def push(self, symbol: Tensor) -> None:
        """Push ``symbol`` (1, n): one cell step from the current state."""
        self._states.append(self.cell(symbol, self._states[-1]))

    def push_state(self, state: Tensor) -> None:
        """Push a symbol given the cell's ``state`` after it, which the caller computed
        (batched over several stacks)."""
        self._states.append(state)

    def pop(self, count: int) -> None:
        """Pop ``count`` symbols: the state of the shorter prefix is the state again."""
        if count > len(self):
            raise ValueError(f"pop: {count} symbols asked for, the stack holds {len(self)}")
        if count > 0:
            del self._states[-count:]


def push_all(cell: nn.GRUCell, stacks: list[GRUStack], symbols: list[Tensor]) -> None:
    """Push ``symbols[k]`` (n,) onto ``stacks[k]`` for all k in one batched cell step."""
    if stacks:
        states = cell(torch.stack(symbols), torch.cat([s.state for s in stacks]))
        for k, stack in enumerate(stacks):
            stack.push_state(states[k : k + 1])


class DeepStackMachineNetwork(nn.Module):
    """The GRU cell and the four heads of the deep stack machine.

    Reads token ids (B, T), one-hot coded, or vectors (B, T, input_size); gives the
    outputs of c_out (B, T, output_size), logits or values. A word's end symbol, if the
    task has one, is part of the inputs.

    Args:
        input_size: n, the input vocabulary or feature count; the stack holds vectors of
            this size (input symbols and nonterminal codes).
        output_size: L, c_out's outputs per step.
        hidden_size: the GRU cell's units (256 in the paper).
        nonterminals: (K, n) the vectors pushed for nonterminals 0 .. K-1 (one-hot codes
            over terminals and nonterminals in the paper); None for none, so that only
            shifted input symbols are ever on the stack.
        max_pop: the most symbols c_pop can pop at once (0: c_pop never pops, and the
            stack only grows).
        max_actions: the most pop/push iterations per step before ``forward`` stops
            trusting the heads (they could otherwise loop).
    """

    accepts: ClassVar[tuple[InputKind, ...]] = ("tokens", "vectors")
    nonterminals: Tensor

    def __init__(
        self,
        input_size: int,
        output_size: int,
        hidden_size: int = 256,
        *,
        nonterminals: Tensor | None = None,
        max_pop: int = 1,
        max_actions: int = 100,
    ) -> None:
        super().__init__()
        check_sizes(
            input_size=input_size,
            output_size=output_size,
            hidden_size=hidden_size,
            max_actions=max_actions,
        )
        check_int("max_pop", max_pop, 0)
        if nonterminals is None:
            nonterminals = torch.zeros(0, input_size)
        if (
            not isinstance(nonterminals, Tensor)
            or nonterminals.ndim != 2
            or nonterminals.shape[1] != input_size
        ):
            got = (
                tuple(nonterminals.shape)
                if isinstance(nonterminals, Tensor)
                else type(nonterminals).__name__
            )
            raise ValueError(f"nonterminals: expected shape (K, {input_size}), got {got}")
        if not nonterminals.is_floating_point():
            raise ValueError(f"nonterminals: expected floats, got dtype {nonterminals.dtype}")
        if not bool(nonterminals.isfinite().all()):
            raise ValueError("nonterminals: contains NaN or inf")
        self.input_size, self.output_size = input_size, output_size
        self.max_actions = max_actions
        self.cell = nn.GRUCell(input_size, hidden_size)
        self.c_pop = nn.Linear(2 * hidden_size, max_pop + 1)
        self.c_push = nn.Linear(2 * hidden_size, len(nonterminals) + 1)
        self.c_shift = nn.Linear(2 * hidden_size, 2)
        self.c_out = nn.Linear(2 * hidden_size, output_size)
        self.register_buffer("nonterminals", nonterminals.to(self.c_out.weight.dtype))

    def forward(
        self, inputs: Tensor, *, lengths: list[int] | None = None, max_actions: int | None = None
    ) -> Tensor:
        """c_out's outputs (B, T, output_size) along the path the heads choose.

        The sequences run in lockstep so that each head and each cell step is batched
        over them; each still follows Algorithm 2 on its own. ``lengths``, if given,
        gives each row's length; the outputs past it are zero. ``max_actions`` overrides
        the network's own.
        """
        x = as_vectors(inputs, self.input_size, self.c_out.weight)
        batch, steps, _ = x.shape
        sizes = [steps] * batch if lengths is None else _check_lengths(lengths, batch, steps)
        limit = (
            self.max_actions if max_actions is None else check_int("max_actions", max_actions, 1)
        )
        stacks = [GRUStack(self.cell) for _ in range(batch)]
        h = x.new_zeros(batch, self.cell.hidden_size)
        outputs = x.new_zeros(batch, steps, self.output_size)

        def rows(indices: list[int]) -> Tensor:
            g = torch.cat([stacks[i].state for i in indices])
            return torch.cat([h[indices], g], dim=1)

        for t in range(max(sizes, default=0)):
            active = [i for i, size in enumerate(sizes) if t < size]
            symbols = x[active, t]
            # ``.to``: under autocast the cell and heads give bfloat16 or float16 rows
            h[active] = self.cell(symbols, h[active]).to(h.dtype)
            pending = active
            for _ in range(limit):
                at = rows(pending)
                pops = self.c_pop(at).argmax(1).tolist()
                pushes = (self.c_push(at).argmax(1) - 1).tolist()  # -1: push nothing
                pushing, pushed, still = [], [], []
                for i, j, a in zip(pending, pops, pushes, strict=True):
                    j = min(j, len(stacks[i]))
                    stacks[i].pop(j)
                    if a >= 0:
                        pushing.append(stacks[i])
                        pushed.append(self.nonterminals[a])
                    if j > 0 or a >= 0:
                        still.append(i)
                push_all(self.cell, pushing, pushed)
                pending = still
                if not pending:
                    break
            at = rows(active)
            outputs[active, t] = self.c_out(at).to(outputs.dtype)
            shifts = self.c_shift(at).argmax(1).tolist()
            shifting = [k for k, s in enumerate(shifts) if s]
            push_all(
                self.cell, [stacks[active[k]] for k in shifting], [symbols[k] for k in shifting]
            )
        return outputs


def _check_lengths(lengths: object, batch: int, steps: int) -> list[int]:
    """``lengths`` as ints; ValueError unless it is a list of ``batch`` ints in 0 .. steps."""
    if (
        not isinstance(lengths, list | tuple)
        or len(lengths) != batch
        or not all(is_int(n) and 0 <= n <= steps for n in lengths)
    ):
        raise ValueError(
            f"lengths: expected {batch} ints in 0 .. {steps} (one per row), got {lengths!r}"
        )
    return [int(n) for n in lengths]
