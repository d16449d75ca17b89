"""The reservoir stack machine of Paassen, Schulz, Hammer (2021): Algorithms 2 and 4.

An echo state network reads the input (state h_t) and, with the same reservoir, the
stack (state g_t). Four classifiers on (h_t, g_t) drive the stack like an LR(1) parser:
c_pop says how many symbols to pop, c_push which nonterminal (if any) to push, both
repeated until they say nothing; then c_out gives the output and c_shift whether the
input symbol goes onto the stack.

The stack state is cheap here. Algorithm 2 re-encodes the whole stack after every pop
(lines 11-14); ``StackEncoder`` keeps the reservoir state of every prefix of the stack,
so a pop restores the state of the shorter prefix, which is the same number, and a push
costs one reservoir step. ``ReencodingStack`` is the literal version, kept for the tests
and the benchmark.

c_pop and c_push are both asked on the stack state before the iteration's pop, as
Algorithm 4 trains them and as the proof of Theorem 2 needs (a rule's pushed nonterminal
depends on the suffix it pops). Algorithm 2 as printed asks c_push after re-encoding the
popped stack (line 16 follows lines 10-14); that order cannot simulate the latch
automaton, whose rules pop the whole stack ("S1" -> A, "A1" -> S) so that nothing is
left to tell which nonterminal to push (measured: training accuracy of c_push 79%).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, overload

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.linear_model import Ridge
from sklearn.utils import Tags
from sklearn.utils.validation import check_is_fitted

from memrnn.estimators.base import (
    Predictions,
    as_list,
    as_sequences,
    sequence_form,
    shaped_like,
    teaching_data,
)
from memrnn.estimators.conventions import AnyRandomState, negative_mae, stack_machine_tags
from memrnn.estimators.reservoir_params import ReservoirParams
from memrnn.estimators.svm import SharedKernel, fit_classifiers
from memrnn.reservoir.reservoirs import Reservoir
from memrnn.tasks.stack_teacher import NO_PUSH, StackTeacher
from memrnn.validation import check_choice, check_flag, check_float, check_int


class _Stack(Protocol):
    def __len__(self) -> int: ...

    @property
    def state(self) -> np.ndarray: ...

    def push(self, symbol: np.ndarray) -> None: ...

    def pop(self, count: int) -> None: ...


class StackEncoder:
    """A stack of symbol vectors with the reservoir state g of every prefix kept."""

    def __init__(self, reservoir: Reservoir) -> None:
        self.reservoir = reservoir
        self._states = [np.zeros(reservoir.n_neurons)]  # _states[i]: g after i symbols

    def __len__(self) -> int:
        return len(self._states) - 1

    @property
    def state(self) -> np.ndarray:
        return self._states[-1]

    def push(self, symbol: np.ndarray) -> None:
        # unchecked: the estimator checked every input and nonterminal code at its boundary
        self._states.append(self.reservoir.step_batch(self._states[-1], symbol))

    def pop(self, count: int) -> None:
        if count > len(self):
            raise ValueError(f"pop: {count} symbols asked for, the stack holds {len(self)}")
        if count > 0:
            del self._states[-count:]


class ReencodingStack:
    """Algorithm 2 to the letter: after a pop, g is recomputed from the whole stack."""

    def __init__(self, reservoir: Reservoir) -> None:
        self.reservoir = reservoir
        self.symbols: list[np.ndarray] = []
        self._state = np.zeros(reservoir.n_neurons)

    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def state(self) -> np.ndarray:
        return self._state

    def push(self, symbol: np.ndarray) -> None:
        self.symbols.append(symbol)
        self._state = self.reservoir.step_batch(self._state, symbol)

    def pop(self, count: int) -> None:
        if count > len(self):
            raise ValueError(f"pop: {count} symbols asked for, the stack holds {len(self)}")
        if count == 0:
            return
        del self.symbols[-count:]
        self._state = np.zeros(self.reservoir.n_neurons)  # lines 11-14
        for symbol in self.symbols:
            self._state = self.reservoir.step_batch(self._state, symbol)


@dataclass
class TrainingSets:
    """Algorithm 4's four data sets, rows of (h_t, g_t)."""

    action_inputs: list[np.ndarray] = field(default_factory=list)
    pop_targets: list[int] = field(default_factory=list)
    push_targets: list[int] = field(default_factory=list)
    step_inputs: list[np.ndarray] = field(default_factory=list)
    shift_targets: list[int] = field(default_factory=list)
    outputs: list[np.ndarray] = field(default_factory=list)


def teacher_forcing(
    reservoir: Reservoir,
    x: np.ndarray,
    teacher: StackTeacher,
    nonterminals: np.ndarray,
    sets: TrainingSets,
    stack_type: type[StackEncoder] | type[ReencodingStack] = StackEncoder,
) -> None:
    """Algorithm 4 for one sequence: run the teacher's stack and append to ``sets``."""
    steps = x.shape[0] + 1
    h = np.zeros(reservoir.n_neurons)
    stack: _Stack = stack_type(reservoir)
    end = np.zeros(x.shape[1])
    for t in range(steps):
        symbol = x[t] if t < x.shape[0] else end
        h = reservoir.step_batch(h, symbol)
        for j, a in [*teacher.actions[t], (0, NO_PUSH)]:
            sets.action_inputs.append(np.concatenate([h, stack.state]))
            sets.pop_targets.append(j)
            sets.push_targets.append(a)
            stack.pop(j)
            if a != NO_PUSH:
                stack.push(nonterminals[a])
        sets.step_inputs.append(np.concatenate([h, stack.state]))
        sets.shift_targets.append(int(teacher.shift[t]))
        sets.outputs.append(np.asarray(teacher.outputs[t], dtype=np.float64))
        if teacher.shift[t] > 0:
            stack.push(symbol)


class ReservoirStackMachine(ReservoirParams, BaseEstimator):
    """Reservoir stack machine: an ESN that drives a stack like an LR(1) parser.

    Inputs are sequences of symbol vectors x_t in R^n; nonterminals are further vectors
    in the same space (one-hot codes over terminals and nonterminals in the paper), given
    to ``fit``. The reservoir hyperparameters are those of ``EchoStateNetwork``.

    Args:
        C: the SVMs' regularisation.
        gamma_factor: multiplies the SVMs' automatic RBF parameter
            gamma = 1 / (n_features Var(X)) (scikit-learn's "scale"); 1 keeps it.
        output: "svm" (c_out an RBF-SVM classifier per output, the paper's choice for the
            languages) or "ridge" (linear regression, its choice for the copy tasks).
        alpha: ridge regularisation when ``output="ridge"``.
        max_actions: the most pop/push iterations per step before prediction stops
            trusting the classifiers (they could otherwise loop).
        random_state: an int seed, a numpy Generator, a numpy RandomState or None; only
            the random reservoir draws numbers.

    Inputs are a list of (T_i, n) arrays, a 3-D array or one 2-D series (see
    ``memrnn.estimators.base``); ``predict`` answers in the same form. ``score`` is minus
    the mean absolute error of ``predict`` against the teachers' outputs, over every
    output of every step (the paper reports the error).
    """

    def __init__(
        self,
        reservoir: str = "ldn",
        n_neurons: int = 256,
        *,
        spectral_radius: float = 0.9,
        sparsity: float = 0.1,
        input_scaling: float = 1.0,
        cycle_weight: float = 0.5,
        jump_weight: float = 0.25,
        jump_length: int = 2,
        input_weight: float = 1.0,
        degree: int | None = None,
        theta: float = 20.0,
        dt: float = 1.0,
        C: float = 100.0,
        gamma_factor: float = 1.0,
        output: str = "svm",
        alpha: float = 1e-3,
        max_actions: int = 100,
        random_state: AnyRandomState = None,
    ) -> None:
        self._store_params(locals())

    def __sklearn_tags__(self) -> Tags:
        return stack_machine_tags(super().__sklearn_tags__())

    def fit(
        self,
        X: object,
        y: Sequence[StackTeacher],
        *,
        nonterminals: np.ndarray,
        reencode: bool = False,
    ) -> ReservoirStackMachine:
        """Train the four classifiers by teacher forcing (Algorithm 4); returns self.

        Args:
            X: input sequences, each (T_i, n).
            y: the desired stack behaviour and outputs for each sequence.
            nonterminals: (K, n) the vectors pushed for nonterminal indices 0 .. K-1.
            reencode: re-encode the stack after each pop, as the printed algorithms do;
                the result is the same, only slower (kept for the benchmark).
        """
        xs, y, codes = teaching_data(X, y, nonterminals)
        n = xs[0].shape[1]
        check_choice("output", self.output, ("svm", "ridge"))
        C = check_float("C", self.C, above=0)
        gamma = check_float("gamma_factor", self.gamma_factor, above=0)
        check_int("max_actions", self.max_actions, 1)
        alpha = check_float("alpha", self.alpha, 0)  # read by output="ridge" only
        check_flag("reencode", reencode)
        reservoir = self._build_reservoir(n)
        sets = TrainingSets()
        stack_type = ReencodingStack if reencode else StackEncoder
        for x, teacher in zip(xs, y, strict=True):
            teacher_forcing(reservoir, x, teacher, codes, sets, stack_type)

        self.reservoir_ = reservoir
        self.nonterminals_ = codes
        self.n_features_in_ = n
        actions, steps = np.asarray(sets.action_inputs), np.asarray(sets.step_inputs)
        targets = [np.asarray(sets.pop_targets), np.asarray(sets.push_targets)]
        self.c_pop_, self.c_push_ = fit_classifiers(actions, targets, C, gamma)
        outputs = np.asarray(sets.outputs)
        self.n_outputs_ = outputs.shape[1]
        targets = [np.asarray(sets.shift_targets)]
        if self.output == "svm":
            targets += list(outputs.T)
        self.c_shift_, *c_out = fit_classifiers(steps, targets, C, gamma)
        if self.output == "ridge":
            self.c_out_ = [Ridge(alpha=alpha).fit(steps, outputs)]
            self._step_kernel = SharedKernel([self.c_shift_])
        else:
            self.c_out_ = c_out
            self._step_kernel = SharedKernel([self.c_shift_, *c_out])
        self._action_kernel = SharedKernel([self.c_pop_, self.c_push_])
        return self

    @overload
    def predict(self, X: np.ndarray, *, reencode: bool = False) -> np.ndarray: ...

    @overload
    def predict(self, X: Sequence[np.ndarray], *, reencode: bool = False) -> list[np.ndarray]: ...

    @overload
    def predict(self, X: object, *, reencode: bool = False) -> Predictions: ...

    def predict(self, X: object, *, reencode: bool = False) -> Predictions:
        """The outputs y_1 .. y_{T+1}, (T_i + 1, L), for each input sequence (Algorithm 2),
        in the form of X.

        The sequences run in lockstep so that each classifier is asked once per step for
        all of them; each sequence still follows Algorithm 2 on its own.
        ``reencode=True`` re-encodes the stack after each pop, as Algorithm 2 is printed;
        the outputs are the same, only slower.
        """
        check_is_fitted(self)
        xs = as_sequences("X", X, "features", self.n_features_in_, type(self).__name__)
        check_flag("reencode", reencode)
        stack_type = ReencodingStack if reencode else StackEncoder
        reservoir = self.reservoir_
        stacks: list[_Stack] = [stack_type(reservoir) for _ in xs]
        h = np.zeros((len(xs), reservoir.n_neurons))
        outputs = [np.zeros((x.shape[0] + 1, self.n_outputs_)) for x in xs]
        end = np.zeros(self.n_features_in_)
        for t in range(max(x.shape[0] for x in xs) + 1):
            active = [i for i, x in enumerate(xs) if t <= x.shape[0]]
            symbols = np.array([xs[i][t] if t < xs[i].shape[0] else end for i in active])
            h[active] = reservoir.step_batch(h[active], symbols)
            pending = active
            for _ in range(self.max_actions):
                rows = np.array([np.concatenate([h[i], stacks[i].state]) for i in pending])
                pops, pushes = self._action_kernel.predict(rows)
                still = []
                for i, j, a in zip(pending, pops, pushes, strict=True):
                    j = min(int(j), len(stacks[i]))
                    stacks[i].pop(j)
                    if a != NO_PUSH:
                        stacks[i].push(self.nonterminals_[int(a)])
                    if j > 0 or a != NO_PUSH:
                        still.append(i)
                pending = still
                if not pending:
                    break
            rows = np.array([np.concatenate([h[i], stacks[i].state]) for i in active])
            shifts, *answers = self._step_kernel.predict(rows)
            if isinstance(self.c_out_[0], Ridge):  # fitted with output="ridge"
                answers = [self.c_out_[0].predict(rows)]
            # one multi-output ridge, or one classifier per output: columns side by side
            y = np.hstack([np.asarray(a).reshape(len(rows), -1) for a in answers])
            for k, i in enumerate(active):
                outputs[i][t] = y[k]
                if int(shifts[k]) > 0:
                    stacks[i].push(symbols[k])
        return shaped_like(sequence_form(X), outputs, flat=False)

    def score(self, X: object, y: Sequence[StackTeacher], sample_weight: None = None) -> float:
        """Minus the mean absolute error of the outputs for X against the outputs of the
        teachers y, over every output of every step of every sequence."""
        if sample_weight is not None:
            raise ValueError("sample_weight: not supported, got an array")
        predictions = as_list(sequence_form(X), self.predict(X))
        _, teachers, _ = teaching_data(X, y, self.nonterminals_)
        return negative_mae([np.asarray(t.outputs) for t in teachers], predictions)
