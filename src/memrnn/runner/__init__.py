"""Running experiments: the train loop, checkpoints, the results store, sweeps, the report."""

GROUP = 16  # the most runs one batched model trains at once (`memrnn reproduce --group`)
