"""
A neural stack and a neural queue, step by step
===============================================

The neural stack of Grefenstette et al. (2015) holds every value it was ever pushed,
each with a strength in [0, 1]. At each step t it pops ``u_t`` units of strength from
the top (Eq. 2), pushes the new value ``v_t`` with strength ``d_t``, and reads a mix of
the values from the top down until one unit of strength is used (Eq. 3). The queue (Eqs.
4-5) is the same memory popped and read at the bottom.
"""

# %%
# Five values, one-hot over the symbols a-e so that a read shows how much of each symbol
# it holds; push strongly, then pop.
import matplotlib.pyplot as plt
import torch

from memrnn.structures import NeuralQueue, NeuralStack

symbols = "abcde"
values = torch.eye(5).unsqueeze(0)  # (B=1, T=5, m=5): a, b, c, d, e
push = torch.tensor([[1.0, 0.9, 0.8, 0.0, 0.0]])
pop = torch.tensor([[0.0, 0.0, 0.0, 0.6, 1.0]])

# %%
# ``step`` runs one step and returns the read and a new state (states are immutable);
# the strengths of every row after each step are what the figure shows.


def strengths_over_time(
    memory: NeuralStack | NeuralQueue,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The strengths s_t (rows x steps) and the reads r_t (steps x m) of ``memory``."""
    state = memory.initial_state(batch_size=1, width=5)
    grid, reads = torch.zeros(5, 5), []
    for t in range(5):
        read, state = memory.step(state, values[:, t], push[:, t], pop[:, t])
        grid[: t + 1, t] = state.strengths[0]
        reads.append(read[0])
    return grid, torch.stack(reads)


fig, axes = plt.subplots(2, 2, figsize=(8, 6), layout="constrained")
for column, memory in enumerate((NeuralStack(), NeuralQueue())):
    grid, reads = strengths_over_time(memory)
    name = type(memory).__name__
    image = axes[0, column].imshow(grid, vmin=0, vmax=1, origin="lower", cmap="viridis")
    axes[0, column].set(
        title=f"{name}: strength of each row",
        xlabel="step t (push d_t / pop u_t)",
        ylabel="row (value pushed)",
        xticks=range(5),
        xticklabels=[f"{d:.1f}/{u:.1f}" for d, u in zip(push[0], pop[0], strict=True)],
        yticks=range(5),
        yticklabels=list(symbols),
    )
    axes[1, column].imshow(reads.T, vmin=0, vmax=1, origin="lower", cmap="magma")
    axes[1, column].set(
        title=f"{name}: the read r_t, by symbol",
        xlabel="step t",
        yticks=range(5),
        yticklabels=list(symbols),
    )
fig.colorbar(image, ax=axes, shrink=0.6, label="strength / weight")
plt.show()

# %%
# The stack pops its newest rows first: after the pop of 0.6 at step 3 the read is a
# mix of c and b, and the pop of 1 at step 4 empties c and most of b. The queue pops a
# first. ``run`` does the whole sequence at once, as one autograd node, and gives the
# same reads:
print(NeuralStack().run(values, push, pop)[0])
print(strengths_over_time(NeuralStack())[1])
