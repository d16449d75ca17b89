"""
Anyone can learn to use a neural stack
======================================

Andrew Trask's tutorial (Trask 2016, *Hacking DeepMind's Neural Stack*) builds the
neural stack of Grefenstette et al. (2015) from its equations, trains a small recurrent
controller to reverse sequences with it, and finds that the controller learns the task
without using the stack as a stack. This tutorial follows the same path with memrnn:

1. the stack's three equations, written out and checked against
   :class:`memrnn.structures.NeuralStack`;
2. the stack pushing and popping on a sequence made by hand;
3. a controller trained on reversal that fails to use its stack;
4. the pop bias of Grefenstette et al. (2015, Appendix B) that fixes it.
"""

# %%
# 1. The stack in three equations
# -------------------------------
# The stack holds a value row ``V_t[i]`` for every value ever pushed, each with a
# strength ``s_t[i]`` in [0, 1]. At step t the controller gives a value ``v_t``, a push
# strength ``d_t`` and a pop strength ``u_t`` (Grefenstette et al. 2015, Eqs. 1-3):
#
# .. code-block:: text
#
#   (1)  V_t[i] = V_{t-1}[i] for i < t,  and  V_t[t] = v_t
#   (2)  s_t[i] = max(0, s_{t-1}[i] - max(0, u_t - sum_{j=i+1}^{t-1} s_{t-1}[j]))
#                                                          for i < t,  and  s_t[t] = d_t
#   (3)  r_t = sum_{i=1}^{t} min(s_t[i], max(0, 1 - sum_{j=i+1}^{t} s_t[j])) V_t[i]
#
# The pop (2) takes ``u_t`` units of strength from the top down; the read (3) mixes the
# values from the top down until one unit of strength has been read. Written as plain
# loops, the way Trask's tutorial writes them:
import matplotlib.pyplot as plt
import numpy as np
import torch


def stack_step(values, strengths, value, push, pop):
    """One step of Eqs. (1)-(3) on plain lists; returns the read and the new memory."""
    new = []
    for i, s in enumerate(strengths):  # (2): pop from the top down
        above = sum(strengths[i + 1 :])
        new.append(max(0.0, s - max(0.0, pop - above)))
    values, strengths = [*values, value], [*new, push]  # (1) and the push of (2)
    read = np.zeros_like(value)
    for i, s in enumerate(strengths):  # (3): read one unit of strength from the top
        above = sum(strengths[i + 1 :])
        read += min(s, max(0.0, 1.0 - above)) * values[i]
    return read, values, strengths


# %%
# memrnn's :class:`~memrnn.structures.NeuralStack` computes the same equations, batched,
# on any device, with a fixed number of tensor operations per step whatever the depth.
# On Figure 1a of the paper (values 1, 2, 3; push 0.8, 0.5, 0.9; pop 0, 0.1, 0.9) the
# two agree:
from memrnn.structures import NeuralStack

values = torch.tensor([[[1.0], [2.0], [3.0]]])  # (B=1, T=3, m=1)
push = torch.tensor([[0.8, 0.5, 0.9]])
pop = torch.tensor([[0.0, 0.1, 0.9]])
stack_reads = NeuralStack().run(values, push, pop).flatten().tolist()
print("NeuralStack reads:", [round(r, 4) for r in stack_reads])

memory: tuple[list, list] = ([], [])
reads = []
for t in range(3):
    value, d, u = values[0, t].numpy(), float(push[0, t]), float(pop[0, t])
    read, *memory = stack_step(*memory, value, d, u)
    reads.append(round(float(read[0]), 4))
print("the loops read:   ", reads)

# %%
# 2. Watching it push and pop
# ---------------------------
# Push the symbols a, b, c, d (one-hot values) with full strength, then pop four times,
# the first pop only half: the algorithm a controller should learn for reversal. The
# strengths show which values are on the stack after each step; the reads show what
# comes off it.
symbols = "abcd"
values = torch.cat([torch.eye(4), torch.zeros(4, 4)]).unsqueeze(0)  # (1, 8, 4)
push = torch.tensor([[1.0, 1, 1, 1, 0, 0, 0, 0]])
pop = torch.tensor([[0.0, 0, 0, 0, 0.5, 1, 1, 1]])
stack = NeuralStack()
state = stack.initial_state(batch_size=1, width=4)
strengths, reads = torch.zeros(8, 8), []
for t in range(8):
    read, state = stack.step(state, values[:, t], push[:, t], pop[:, t])
    strengths[: t + 1, t] = state.strengths[0]
    reads.append(read[0])

fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
steps = [
    f"d={d:g}\nu={u:g}" for d, u in zip(push[0].tolist(), pop[0].tolist(), strict=True)
]
axes[0].imshow(strengths[:4], origin="lower", vmin=0, vmax=1, cmap="viridis")
axes[0].set(title="strength s_t[i] of each value", xticks=range(8), xticklabels=steps)
axes[0].set(yticks=range(4), yticklabels=list(symbols), ylabel="value pushed")
axes[1].imshow(torch.stack(reads).T, origin="lower", vmin=0, vmax=1, cmap="magma")
axes[1].set(title="read r_t, by symbol", xticks=range(8), xticklabels=steps)
axes[1].set(yticks=range(4), yticklabels=list(symbols))
plt.show()

# %%
# While pushing, the read is the newest value; the half pop at step 5 leaves d at 0.5,
# so the read mixes d and c half and half; each full pop then uncovers the value below:
# c, b, a. A controller reverses a sequence by pushing each symbol as it reads it and
# popping one unit per step as it writes.
#
# 3. A controller that does not use its stack
# -------------------------------------------
# The experiment ``trask2016`` trains the tutorial's controller: an Elman RNN of 8 units
# reading one-hot symbols, whose output layer o'_t gives the value to push, the push and
# pop strengths and the output, on sequences of 2-6 symbols over 4 symbols, to be
# written back reversed (1500 Adam steps of 50 sequences). Its variant ``naive`` starts
# the gate biases where the tutorial did, push from U(0.1, 0.3) and pop from U(-0.1,
# 0.1).
#
# :func:`memrnn.runner.train.train` trains one run of an experiment, as ``memrnn train``
# does; taking the run from the experiment's quick profile gives the same numbers as its
# table. Seed 1 is one of the seeds that shows the tutorial's symptom:
from memrnn.experiments.trask2016 import Trask2016
from memrnn.runner.train import train

experiment = Trask2016()
runs = {spec.name: spec for spec in experiment.runs("quick")}


def trained(name: str):
    """The run ``name`` of the quick profile, trained on the CPU."""
    config = experiment.config_type(**{**runs[name].config, "device": "cpu"})
    return train(experiment, config)


def show(output) -> None:
    """The run's final metrics, one a line."""
    for key in experiment.metrics:
        print(f"{key:>16}  {output.metrics[key]:.3f}")


naive = trained("naive/seed1")
show(naive)

# %%
# ``stack_use`` is 1 when the gates follow the algorithm (push while reading, pop while
# writing) and 0 when they do the same thing in both halves. The gates of one sequence
# of 6 symbols, read then written back:


def plot_gates(output, title: str) -> None:
    """Push and pop strengths over the sequence, reading | writing."""
    gates = np.array([output.artifacts["trace_push"], output.artifacts["trace_pop"]])
    n = len(output.artifacts["trace_sequence"])
    fig, axis = plt.subplots(figsize=(8, 1.8), layout="constrained")
    image = axis.imshow(gates, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    axis.axvline(n - 0.5, color="white")
    axis.set(yticks=[0, 1], yticklabels=["push", "pop"])
    axis.set_xlabel("time step: reading | writing")
    axis.set_title(f"{title}: stack_use {output.metrics['stack_use']:.2f}")
    fig.colorbar(image, ax=axis)
    plt.show()


plot_gates(naive, "naive start, seed 1")

# %%
# The gates hardly change between reading and writing, and the pops are far from 0 and
# 1: the stack serves as an extra hidden layer, as Trask found. The controller fits part
# of the training lengths and reverses no sequence of length 12.
#
# 4. The pop bias
# ---------------
# Grefenstette et al. (2015, Appendix B) start the pop gate's bias at -1, so that the
# controller begins by keeping what it pushes. The variant ``pop-bias`` does only that
# (push bias 0, pop bias -1), with the same seed:
pop_bias = trained("pop-bias/seed1")
show(pop_bias)

# %%
# Its gates on the same sequence:
plot_gates(pop_bias, "pop bias -1, seed 1")

# %%
# Now it pushes while reading and pops while writing, and it reverses sequences twice
# as long as any it was trained on. The share of sequences reversed without a mistake at
# each length, the training lengths shaded:
fig, axis = plt.subplots(figsize=(6, 3.5), layout="constrained")
axis.axvspan(1.5, 6.5, color="0.9", label="training lengths")
for output, label in ((naive, "naive"), (pop_bias, "pop bias")):
    lengths, accuracy = (
        output.artifacts["lengths"],
        output.artifacts["seq_acc_by_length"],
    )
    axis.plot(lengths, accuracy, "o-", label=label)
axis.set(xlabel="sequence length", ylabel="sequences fully correct", ylim=(-0.02, 1.02))
axis.legend(loc="center right")
plt.show()

# %%
# Over five seeds the naive start uses its stack in three and shows the symptom in two;
# the pop bias makes all five use it; Trask's own fix (biases near +1 and -1 with an
# autoencoder side task) made none use it within these 1500 steps. The whole comparison
# is one command, and its results are on :doc:`../experiments/trask2016`:
#
# .. code-block:: bash
#
#   memrnn reproduce trask2016 --profile quick
