#!/usr/bin/env bash
# The GPU checks and timings of the memories and their controllers, in one call on a
# machine with a CUDA device and memrnn installed (python on PATH):
#   bash benchmarks/gpu.sh [OUT_DIR]
# Writes each table to OUT_DIR (default: benchmarks/results) as well as to the terminal.
set -euo pipefail
export PYTHONPATH="src:benchmarks${PYTHONPATH:+:$PYTHONPATH}"  # memrnn from this checkout
out=${1:-benchmarks/results}
mkdir -p "$out"
python - <<'PY'
import torch
assert torch.cuda.is_available(), "no CUDA device: these checks need one"
print(torch.cuda.get_device_name(0), torch.__version__)
PY
# a failing GPU test is reported at the end; the timings still run
tests_rc=0
python -m pytest -q -m gpu tests 2>&1 | tee "$out/gpu_tests.txt" || tests_rc=$?
python benchmarks/train_step.py --device cuda --batch 10 256 --length 64 130 256 \
    | tee "$out/train_step_cuda.txt"
python benchmarks/train_step.py --device cuda --memory | tee "$out/train_step_memory_cuda.txt"
python benchmarks/compile_step.py --device cuda | tee "$out/compile_step_cuda.txt"
python benchmarks/controllers.py --device cuda --batch 10 256 | tee "$out/controllers_cuda.txt"
python benchmarks/matrix_paper.py --device cuda | tee "$out/matrix_paper_cuda.txt"
python benchmarks/grefenstette_paper.py --device cuda | tee "$out/grefenstette_paper_cuda.txt"
# many runs as one, at the shape of Grefenstette et al.'s grid (T up to 130)
for hidden in 256 512; do
  python benchmarks/batched_runs.py --device cuda --runs 1 8 32 128 --steps 20 \
      --hidden "$hidden" --embedding 64 --memory-width 256 --batch 10 --train-max 64 \
      | tee "$out/batched_runs_cuda_h$hidden.txt"
done
exit "$tests_rc"
