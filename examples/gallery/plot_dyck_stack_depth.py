"""
A Dyck-(2,3) string, its stack, and the LSTM built to generate it
=================================================================

Dyck-(k,m) (Hewitt et al. 2020) holds the strings of balanced brackets of ``k`` types
whose number of unclosed brackets never exceeds ``m``, each ended by the end symbol
``#``. A string is drawn from the distribution of the paper's Appendix H; its depth is
the height of the stack a parser would keep. Theorem 3 builds an LSTM of ``m k`` units
that generates the language, and its cell state holds that stack: ``m`` slots of ``k``
units, one slot per open bracket.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

from memrnn.constructions import build
from memrnn.languages.dyck import count_strings, is_dyck, sample_string, to_text

k, m = 2, 3
tokens = sample_string(np.random.default_rng(3), k, m, 31, 41)
text = to_text(tokens, k)
print(text, "in Dyck-(2,3):", is_dyck(tokens, k, m))

# %%
# The depth after each token: an open bracket (ids ``0 .. k-1``) pushes, a close bracket
# (``k .. 2k-1``) pops.
depth = np.cumsum([1 if t < k else -1 if t < 2 * k else 0 for t in tokens])

# %%
# The hand-built LSTM (Theorem 3: ``m k`` = 6 units, W_c = 0), stepped over the string.
lstm = build("lstm-onehot", k, m)
state = lstm.initial_state(1)
cells, end_probability = [], []
with torch.no_grad():
    for token in tokens:
        state = lstm.step(state, torch.tensor([int(token)]))
        cells.append(state[0, lstm.hidden_size :].numpy())
        end_probability.append(float(lstm.distribution(state)[0, 2 * k]))

fig, axes = plt.subplots(3, 1, figsize=(9, 6.5), sharex=True, layout="constrained")
steps = np.arange(len(tokens))
axes[0].step(steps, depth, where="mid")
axes[0].axhline(m, color="0.6", linestyle="--", label=f"m = {m}")
axes[0].set(ylabel="stack depth", yticks=range(m + 1))
axes[0].legend(loc="upper right")
image = axes[1].imshow(
    np.array(cells).T, aspect="auto", cmap="coolwarm", vmin=-1, vmax=1
)
axes[1].set(
    ylabel="cell unit",
    yticks=range(m * k),
    yticklabels=[f"slot {j + 1}, {'(['[i]}" for j in range(m) for i in range(k)],
)
fig.colorbar(image, ax=axes[1], label="c_t")
axes[2].plot(steps, end_probability, marker=".")
axes[2].set(ylabel="p(# next)", xticks=steps, xlabel="token")
axes[2].set_xticklabels(list(text), fontfamily="monospace")
plt.show()

# %%
# Each open bracket writes its type into the next free slot; a close bracket clears the
# top one. The end symbol is allowed exactly where the stack is empty.
#
# How many strings each length has grows fast with ``m`` (``count_strings`` counts them
# exactly, by dynamic programming):
for m_ in (1, 2, 3, 4):
    print(
        f"Dyck-(2,{m_}):", [count_strings(2, m_, length) for length in range(1, 16, 2)]
    )
