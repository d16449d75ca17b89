"""
The associative retrieval data of Ba et al. (2016)
==================================================

An example is K key-value pairs, then ``??``, then one of the keys; the answer is the
digit stored with that key: ``c9k8j3f1??c`` is answered ``9`` (Ba et al. 2016, section
4.1). A network must keep every pair of the recent past to answer, which is what the
fast weights ``A_t = lambda A_{t-1} + eta h_t h_t^T`` are for.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from memrnn.tasks.retrieval import SYMBOLS, answer, sample, to_text

inputs, targets = sample(np.random.default_rng(0), 5, pairs=4)
for row, target in zip(inputs, targets, strict=True):
    text = to_text(row)
    print(text, "->", target, "(by a dictionary of the pairs:", answer(text), ")")

# %%
# The first example as the model reads it: one one-hot vector over the 37 symbols per
# step. The query key at the last step matches the key of one pair, whose digit is the
# answer.
example = inputs[0]
onehot = np.zeros((len(SYMBOLS), len(example)))
onehot[example, np.arange(len(example))] = 1
asked = int(np.flatnonzero(example[:-3] == example[-1])[0])

fig, axes = plt.subplots(1, 2, figsize=(9, 4.5), layout="constrained")
axes[0].imshow(onehot, aspect="auto", cmap="Greys", interpolation="nearest")
axes[0].add_patch(
    plt.Rectangle((asked - 0.5, -0.5), 2, len(SYMBOLS), fill=False, ec="red")
)
axes[0].set(
    title=f"{to_text(example)} -> {targets[0]}",
    xticks=range(len(example)),
    xticklabels=list(to_text(example)),
    yticks=range(0, len(SYMBOLS), 3),
    yticklabels=list(SYMBOLS[::3]),
    ylabel="symbol",
    xlabel="step",
)

# %%
# The fast memory at the query step weighs each earlier state h_tau by eta lambda^(t -
# tau) (the fast weights update, unrolled), so the pairs of the recent past are what it
# recalls; the defaults of ``memrnn.models.FastWeightsRNN`` are lambda = 0.95 and eta =
# 0.5.
steps = np.arange(len(example))
for decay in (0.95, 0.8, 0.5):
    axes[1].plot(
        steps, 0.5 * decay ** (steps[-1] - steps), marker="o", label=f"lambda = {decay}"
    )
axes[1].set(
    title="weight of each past state at the query step",
    xlabel="step tau",
    ylabel="eta lambda^(t - tau)",
)
axes[1].legend()
plt.show()

# %%
# ``memrnn.tasks.make_task("associative_retrieval")`` serves these examples on the task
# contract, and the experiment ``ba2016`` trains the Fast Weights RNN, an IRNN, an LSTM
# and an A-LSTM on them (:doc:`../experiments/ba2016`).
