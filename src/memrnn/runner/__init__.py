"""Running experiments: the train loop, checkpoints, the results store, sweeps, the report."""
