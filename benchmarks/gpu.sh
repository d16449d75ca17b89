#!/usr/bin/env bash
# The GPU checks and timings of the memories and their controllers, in one call on a
# machine with a CUDA device and memrnn installed (python on PATH):
#   bash benchmarks/gpu.sh [OUT_DIR] [all]
# Writes each table to OUT_DIR (default: benchmarks/results) as well as to the terminal.
# The first part (about 9 minutes at most: each command has its own time limit, and one
# that runs out or fails is reported at the end while the others still run) is what a
# short loan of a GPU should measure first: the CUDA tests, the Stack-LSTM's step against
# the LSTM alone, many runs as one at the shape of Grefenstette et al.'s grid, that
# grid's projected GPU-hours, and torch.compile. "all" adds the memory table, the
# controllers at hidden 256 and 512, and the generalisation matrix's paper projection.
set -uo pipefail
export PYTHONPATH="src:benchmarks${PYTHONPATH:+:$PYTHONPATH}"  # memrnn from this checkout
out=${1:-benchmarks/results}
mkdir -p "$out"
python - <<'PY' || exit 1
import torch
assert torch.cuda.is_available(), "no CUDA device: these checks need one"
print(torch.cuda.get_device_name(0), torch.__version__)
PY
failed=()

# run SECONDS NAME COMMAND...: the command under a time limit, its output to OUT/NAME.txt
run() {
  local limit=$1 name=$2
  shift 2
  echo "== $name (at most ${limit} s)"
  timeout "$limit" "$@" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    failed+=("$name (exit $rc$([ "$rc" -eq 124 ] && echo ', out of time'))")
  fi
}

run 120 gpu_tests python -m pytest -q -m gpu tests
run 60 train_step_cuda python benchmarks/train_step.py --device cuda --batch 10 --length 130 \
    --only fused --rounds 3
# many runs as one, at the shape of Grefenstette et al.'s grid (T up to 130)
for hidden in 256 512; do
  run 90 "batched_runs_cuda_h$hidden" python benchmarks/batched_runs.py --device cuda \
      --runs 1 8 32 128 --steps 20 --alone-max 8 --hidden "$hidden" --embedding 64 \
      --memory-width 256 --batch 10 --train-max 64 --rounds 1
done
run 120 grefenstette_paper_cuda python benchmarks/grefenstette_paper.py --device cuda --steps 5
run 90 compile_step_cuda python benchmarks/compile_step.py --device cuda
if [ "${2:-}" = all ]; then
  run 120 train_step_sizes_cuda python benchmarks/train_step.py --device cuda --batch 10 256 \
      --length 64 130 256
  run 90 train_step_memory_cuda python benchmarks/train_step.py --device cuda --memory
  run 90 controllers_cuda python benchmarks/controllers.py --device cuda --batch 10 256
  run 150 matrix_paper_cuda python benchmarks/matrix_paper.py --device cuda
fi
if [ "${#failed[@]}" -ne 0 ]; then
  printf 'failed or out of time: %s\n' "${failed[@]}"
  exit 1
fi
