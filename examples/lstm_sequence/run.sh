#!/usr/bin/env bash
# LSTM that predicts the next value of sine waves, end to end. From the
# repository root:
#   bash examples/lstm_sequence/run.sh
# BUILD_DIR  build directory with the tools (default: build)
# PYTHON     a python3 with numpy and h5py (default: /usr/bin/python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
PYTHON="${PYTHON:-/usr/bin/python3}"
EX=examples/lstm_sequence
CAFFE="$BUILD_DIR/tools/caffe"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}"
[ -x "$CAFFE" ] || { echo "$CAFFE not found: build first (or set BUILD_DIR)" >&2; exit 1; }

mkdir -p "$EX/data"
echo "== Making sine-wave sequences"
"$PYTHON" "$EX/make_sine_data.py" "$EX/data"

echo "== Training (log: $EX/data/train.log)"
"$CAFFE" train --solver="$EX/lstm_solver.prototxt" 2>&1 | tee "$EX/data/train.log" |
    { grep -E "Iteration [0-9]+ .*loss =|Test net output" || true; } ||
    { echo "training failed, see $EX/data/train.log" >&2; exit 1; }

# Test losses (EuclideanLoss over the whole test file) before and after
# training, and the previous-value baseline in the same units.
LOSSES="$(sed -n 's/.*Test net output #0: loss = \([0-9.e+-]*\).*/\1/p' "$EX/data/train.log")"
FIRST="$(echo "$LOSSES" | head -n1)"
LAST="$(echo "$LOSSES" | tail -n1)"
ITER="$(sed -n 's/.*Iteration \([0-9]*\), Testing net.*/\1/p' "$EX/data/train.log" | tail -n1)"
read -r _ BASE_MSE BASE_LOSS < <(grep '^previous ' "$EX/data/baselines.txt")
# EuclideanLoss = N/2 * MSE (N streams); baselines.txt gives both.
awk -v f="$FIRST" -v l="$LAST" -v it="$ITER" -v bm="$BASE_MSE" -v bl="$BASE_LOSS" 'BEGIN {
  printf "LSTM next-value prediction of sine waves: test loss %.4f at iteration 0 -> %.4f at %d (MSE %.4f -> %.5f); previous-value baseline loss %.4f (MSE %.4f), %.0fx the LSTM'"'"'s\n",
         f, l, it, f * bm / bl, l * bm / bl, bl, bm, bl / l }'
