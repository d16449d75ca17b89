"""The deep stack machine: prefix-state stack, teacher forcing, learning Dyck1, contract."""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from torch import nn

from memrnn.estimators.dsm import DeepStackMachine, _teacher_forced_loss, _word
from memrnn.estimators.rsm import TrainingSets, teacher_forcing
from memrnn.languages.automata import automaton
from memrnn.languages.pcfg import sample_words
from memrnn.models.stack_machine import DeepStackMachineNetwork
from memrnn.reservoir import Reservoir
from memrnn.tasks.lr1_data import LR1Coding
from memrnn.tasks.rsm_benchmarks import make_dataset
from memrnn.tasks.stack_teacher import NO_PUSH, StackTeacher


def _lr1_sets(
    name: str, rng: np.random.Generator, n: int, lo: int, hi: int
) -> tuple[list[np.ndarray], list[StackTeacher], np.ndarray]:
    coding = LR1Coding(automaton(name))
    xs, teachers = [], []
    for word in sample_words(name, rng, n, lo, hi):
        example = coding.example(word)
        xs.append(example.inputs)
        teachers.append(StackTeacher(example.actions, example.shift, example.outputs))
    return xs, teachers, coding.nonterminal_codes()


class _CellReservoir:
    """The GRU cell behind the two members of a Reservoir that ``teacher_forcing`` uses."""

    def __init__(self, cell: nn.GRUCell) -> None:
        self.cell = cell
        self.n_neurons = cell.hidden_size

    def step_batch(self, h: np.ndarray, x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            row = self.cell(
                torch.as_tensor(x, dtype=torch.float32)[None],
                torch.as_tensor(h, dtype=torch.float32)[None],
            )
        return row[0].numpy().astype(np.float64)


def test_loss_follows_the_rsm_teacher_forcing_traversal() -> None:
    """The heads' losses on the rows of ``rsm.teacher_forcing`` run with the GRU cell as
    the reservoir equal the DSM's teacher-forced loss, whose gradient reaches the cell
    through the stack state g too."""
    xs, teachers, codes = _lr1_sets("dyck2", np.random.default_rng(0), 1, 12, 20)
    torch.manual_seed(0)
    symbols = torch.as_tensor(codes, dtype=torch.float32)
    net = DeepStackMachineNetwork(codes.shape[1], 1, 10, nonterminals=symbols, max_pop=3)
    sets = TrainingSets()
    teacher_forcing(cast(Reservoir, _CellReservoir(net.cell)), xs[0], teachers[0], codes, sets)
    actions = torch.as_tensor(np.array(sets.action_inputs), dtype=torch.float32)
    steps = torch.as_tensor(np.array(sets.step_inputs), dtype=torch.float32)
    ce = nn.functional.cross_entropy
    with torch.no_grad():
        expected = (
            ce(net.c_pop(actions), torch.tensor(sets.pop_targets))
            + ce(net.c_push(actions), torch.tensor(sets.push_targets) + 1)
            + ce(net.c_shift(steps), torch.tensor(sets.shift_targets))
            + nn.functional.binary_cross_entropy_with_logits(
                net.c_out(steps), torch.as_tensor(np.array(sets.outputs), dtype=torch.float32)
            )
        )
    loss = _teacher_forced_loss(net, _word(0, xs[0], teachers[0]), symbols, "bce")
    torch.testing.assert_close(loss, expected)
    # with the heads blind to h, the loss still reaches the cell: through g
    with torch.no_grad():
        for head in (net.c_pop, net.c_push, net.c_shift, net.c_out):
            head.weight[:, :10] = 0.0
    through_g = _teacher_forced_loss(net, _word(0, xs[0], teachers[0]), symbols, "bce")
    (grad,) = torch.autograd.grad(through_g, net.cell.weight_ih)
    assert grad.abs().sum() > 0


def test_learns_dyck1_from_teacher_actions() -> None:
    rng = np.random.default_rng(0)
    train_x, train_y, codes = _lr1_sets("dyck1", rng, 30, 1, 12)
    test_x, test_y, _ = _lr1_sets("dyck1", rng, 20, 1, 20)

    def errors(machine: DeepStackMachine) -> list[float]:
        predictions = machine.predict(test_x)
        return [
            float(np.abs(p - t.outputs).mean()) for p, t in zip(predictions, test_y, strict=True)
        ]

    untrained = DeepStackMachine(16, epochs=20, lr=0.01, random_state=0, threads=1)
    assert max(errors(untrained.fit(train_x, train_y, nonterminals=codes))) > 0.2
    dsm = DeepStackMachine(16, epochs=400, lr=0.01, random_state=0, threads=1)
    assert dsm.fit(train_x, train_y, nonterminals=codes) is dsm
    assert max(errors(dsm)) == 0.0
    predictions = dsm.predict(test_x)
    assert [p.shape for p in predictions] == [(len(x) + 1, 1) for x in test_x]
    for i in (0, 7):  # lockstep over a batch == each sequence alone
        np.testing.assert_array_equal(dsm.predict([test_x[i]])[0], predictions[i])


def test_same_seed_same_machine_and_global_rng_untouched() -> None:
    xs, teachers, codes = _lr1_sets("dyck1", np.random.default_rng(2), 4, 2, 10)
    torch.manual_seed(123)
    before = torch.get_rng_state()
    a = DeepStackMachine(8, epochs=15, output="mse", random_state=4, threads=1).fit(
        xs, teachers, nonterminals=codes
    )
    assert torch.equal(torch.get_rng_state(), before)
    b = DeepStackMachine(8, epochs=15, output="mse", random_state=4, threads=1).fit(
        xs, teachers, nonterminals=codes
    )
    np.testing.assert_array_equal(a.loss_curve_, b.loss_curve_)
    for p, q in zip(a.predict(xs), b.predict(xs), strict=True):
        np.testing.assert_array_equal(p, q)
        assert len(np.unique(p)) > 2  # mse: raw outputs


def test_prediction_clips_pops_and_stops_after_max_actions() -> None:
    """Heads that always pop the most and always push must neither fail nor loop."""
    xs, teachers, codes = _lr1_sets("dyck1", np.random.default_rng(3), 3, 4, 10)
    dsm = DeepStackMachine(6, epochs=1, max_actions=7, random_state=0, threads=1)
    dsm.fit(xs, teachers, nonterminals=codes)
    with torch.no_grad():
        for head, favourite in ((dsm.module_.c_pop, -1), (dsm.module_.c_push, 1)):
            head.weight.zero_()
            head.bias.zero_()
            head.bias[favourite] = 10.0
    assert [p.shape for p in dsm.predict(xs)] == [(len(x) + 1, 1) for x in xs]


def test_estimator_contract_and_errors() -> None:
    dsm = DeepStackMachine(4, epochs=2, lr=0.01, max_actions=5, random_state=3, threads=1)
    assert clone(dsm).get_params() == dsm.get_params()
    assert dsm.set_params(max_actions=6).max_actions == 6
    xs, teachers, codes = _lr1_sets("dyck1", np.random.default_rng(0), 1, 4, 4)
    x, teacher = xs[0], teachers[0]
    with pytest.raises(NotFittedError):
        dsm.predict([x])

    def fails(
        message: str, X: object = xs, y: object = teachers, nonterminals: object = codes
    ) -> None:
        with pytest.raises(ValueError, match=message):
            dsm.fit(X, y, nonterminals=nonterminals)  # type: ignore[arg-type]

    fails(r"X\[0\]: expected a 2-D", X=[np.ones(3)])
    fails(r"nonterminals: expected shape \(K, 3\)", nonterminals=np.ones((1, 2)))
    fails(r"y: expected a list of StackTeacher", y=teacher)
    fails(r"y: has 2 teachers but X has 1", y=[teacher, teacher])
    fails(r"y\[0\]: expected a StackTeacher", y=[x])
    short = StackTeacher(teacher.actions[:-1], teacher.shift, teacher.outputs)
    fails(r"y\[0\]: needs T \+ 1 = 5 steps", y=[short])
    idle = StackTeacher([[(0, NO_PUSH)], [], [], [], []], teacher.shift, teacher.outputs)
    fails(r"action \(0, -1\) at step 0 is not allowed", y=[idle])
    greedy = StackTeacher([[(2, 0)], [], [], [], []], teacher.shift, teacher.outputs)
    fails(r"y\[0\]: action \(2, 0\) at step 0 pops 2 symbols, the stack holds 0", y=[greedy])
    halfway = StackTeacher(teacher.actions, np.full(5, 0.5), teacher.outputs)
    fails(r"y\[0\]: shift must hold 0 or 1", y=[halfway])
    loud = StackTeacher(teacher.actions, teacher.shift, 3 * np.ones((5, 1)))
    fails(r"y.outputs\[0\]: bce needs targets in \[0, 1\]", y=[loud])
    fails(r"X\[0\]: holds 1e\+300, beyond float32's largest", X=[np.full_like(x, 1e300)])
    fails(r"nonterminals\[0\]: holds 1e\+40, beyond", nonterminals=np.full_like(codes, 1e40))
    dsm.set_params(output="svm")
    fails("output: expected one of bce, mse, got 'svm'")
    dsm.set_params(output="bce", max_actions=0)
    fails(r"max_actions: expected an int >= 1")
    dsm.set_params(max_actions=6)
    assert dsm.fit(xs, teachers, nonterminals=codes) is dsm
    assert dsm.module_.c_pop.out_features == 1 + max(j for s in teacher.actions for j, _ in s)
    with pytest.raises(ValueError, match=r"X\[0\] has 2 features, but \w+ is expecting 3"):
        dsm.predict([np.ones((3, 2))])
    with pytest.raises(ValueError, match=r"X\[0\]: holds 1e\+300, beyond float32's largest"):
        dsm.predict([np.full((3, 3), 1e300)])


def test_predict_values_are_the_sigmoid_its_predict_decides_on() -> None:
    rng = np.random.default_rng(0)
    train = make_dataset("dyck1", rng, 6, test=False)
    test = make_dataset("dyck1", rng, 3, test=True)
    dsm = DeepStackMachine(12, epochs=3, random_state=0, max_actions=40)
    dsm.fit(train.inputs, train.teachers, nonterminals=train.nonterminals)
    values = dsm.predict_values(test.inputs)
    for v, decided, x in zip(values, dsm.predict(test.inputs), test.inputs, strict=True):
        assert v.shape == (len(x) + 1, 1) and v.min() > 0 and v.max() < 1
        np.testing.assert_array_equal((v > 0.5).astype(np.float64), decided)


def test_teachers_that_never_pop() -> None:
    """The copy task's teachers only push: c_pop has the one class 0 and never pops."""
    train = make_dataset("copy", np.random.default_rng(0), 3, test=False)
    assert all(j == 0 for t in train.teachers for steps in t.actions for j, _ in steps)
    dsm = DeepStackMachine(6, epochs=2, output="mse", random_state=0)
    dsm.fit(train.inputs, train.teachers, nonterminals=train.nonterminals)
    assert dsm.module_.c_pop.out_features == 1
    outputs = dsm.predict(train.inputs)
    assert [len(y) for y in outputs] == [len(x) + 1 for x in train.inputs]
