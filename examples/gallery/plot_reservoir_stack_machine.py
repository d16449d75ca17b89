"""
A reservoir stack machine learns Dyck2
======================================

The reservoir stack machine of Paassen, Schulz and Hammer (2021) is an echo state
network whose classifiers drive a stack as an LR(1) parser does. It is trained, by
teacher forcing, from the actions the parser takes on each training word (Algorithm 4),
and then reads longer words on its own (Algorithm 2). Here it learns to say, after each
prefix of a word of brackets of two types, whether the prefix is a word of Dyck2, from
100 words of up to 50 symbols (the paper's training set), and reads words of 50 to 100.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from memrnn.estimators import EchoStateNetwork, ReservoirStackMachine
from memrnn.languages import automaton
from memrnn.tasks.lr1_data import LR1Coding
from memrnn.tasks.rsm_benchmarks import make_dataset, scored_rows

rng = np.random.default_rng(0)
train = make_dataset("dyck2", rng, 100, test=False)
test = make_dataset("dyck2", rng, 20, test=True)
print(
    len(train),
    "training words of",
    min(map(len, train.inputs)),
    "to",
    max(map(len, train.inputs)),
)

# A Legendre delay network reservoir (LDN) of 256 neurons, with the time scale theta
# that the experiment paassen2021 found for the languages (its ``QUICK_PARAMS``).
rsm = ReservoirStackMachine("ldn", 256, theta=3.0, random_state=0)
rsm.fit(train.inputs, train.teachers, nonterminals=train.nonterminals)
rsm_out = [scored_rows("dyck2", y) for y in rsm.predict(test.inputs)]

# %%
# An echo state network with the same reservoir reads the same words without a stack.
esn = EchoStateNetwork("ldn", 256, theta=3.0, random_state=0).fit(
    train.inputs, train.targets
)
esn_out = esn.predict(test.inputs)


def mean_absolute_error(outputs: list[np.ndarray]) -> float:
    """The paper's error: mean absolute error over every step of every test word."""
    return float(
        np.mean(
            np.concatenate(
                [
                    np.abs(o - t).ravel()
                    for o, t in zip(outputs, test.targets, strict=True)
                ]
            )
        )
    )


rsm_error, esn_error = mean_absolute_error(rsm_out), mean_absolute_error(esn_out)
print(f"test MAE: RSM {rsm_error:.3f}, ESN {esn_error:.3f}")

# %%
# One test word, longer than any trained on: the target (1 where the prefix so far is a
# complete word), the RSM's output and the ESN's, with the depth of the parser's stack.
word = 0
terminals = LR1Coding(automaton("dyck2")).terminals  # the order of the one-hot codes
symbols = [terminals[int(np.argmax(x))] for x in test.inputs[word]]
depth = np.cumsum([1 if s in "([" else -1 for s in symbols])
print("".join(symbols))
fig, axes = plt.subplots(2, 1, figsize=(10, 5), sharex=True, layout="constrained")
steps = np.arange(len(test.targets[word]))
axes[0].step(steps, test.targets[word][:, 0], where="mid", color="k", label="target")
axes[0].plot(steps, rsm_out[word][:, 0], "o", ms=3, label="RSM")
axes[0].plot(steps, esn_out[word][:, 0], ".", ms=3, alpha=0.7, label="ESN")
axes[0].set(ylabel="is a word so far", ylim=(-0.6, 1.6))
axes[0].legend(ncol=3, loc="upper right")
axes[1].step(np.arange(len(depth)), depth, where="mid")
axes[1].set(xlabel="step", ylabel="brackets open")
plt.show()
