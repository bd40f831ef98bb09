#!/usr/bin/env bash
# Siamese net on Fashion-MNIST pairs, end to end. From the repository root:
#   bash examples/siamese/run.sh
# BUILD_DIR  build directory with the tools (default: build)
# DATA       directory with the Fashion-MNIST idx[.gz] files
#            (default: /usr/share/datasets/fashion-mnist)
# PYTHON     a python3 with numpy and h5py (default: /usr/bin/python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
DATA="${DATA:-/usr/share/datasets/fashion-mnist}"
PYTHON="${PYTHON:-/usr/bin/python3}"
EX=examples/siamese
CAFFE="$BUILD_DIR/tools/caffe"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}"
[ -x "$CAFFE" ] || { echo "$CAFFE not found: build first (or set BUILD_DIR)" >&2; exit 1; }

mkdir -p "$EX/data"
echo "== Making image pairs from $DATA"
"$PYTHON" "$EX/create_pairs.py" "$DATA" "$EX/data"

echo "== Training (log: $EX/data/train.log)"
"$CAFFE" train --solver="$EX/siamese_solver.prototxt" 2>&1 | tee "$EX/data/train.log" |
    { grep -E "Iteration [0-9]+ .*loss =|Test net output" || true; } ||
    { echo "training failed, see $EX/data/train.log" >&2; exit 1; }
WEIGHTS="$(ls -t "$EX"/data/siamese_iter_*.caffemodel | head -n1)"

echo "== Features of the validation and test pairs ($WEIGHTS)"
"$CAFFE" test --model="$EX/siamese_features.prototxt" --weights="$WEIGHTS" \
    --stage=val --iterations=50 > "$EX/data/features_val.log" 2>&1 ||
    { echo "caffe test failed, see $EX/data/features_val.log" >&2; exit 1; }
"$CAFFE" test --model="$EX/siamese_features.prototxt" --weights="$WEIGHTS" \
    --stage=test --iterations=100 > "$EX/data/features_test.log" 2>&1 ||
    { echo "caffe test failed, see $EX/data/features_test.log" >&2; exit 1; }

# The contrastive loss over all 10000 test pairs, as `caffe test` reports it.
TEST_LOSS="$(sed -n 's/.*\] loss = \([0-9.e+-]*\).*/\1/p' "$EX/data/features_test.log" | tail -n1)"
read -r ACC THRESH VAL_ACC NTEST < <("$PYTHON" "$EX/pair_accuracy.py" \
    "$EX/data/val_features.h5" "$EX/data/test_features.h5")
echo "Siamese on Fashion-MNIST: test contrastive loss $TEST_LOSS; pair accuracy $ACC on $NTEST test pairs (same class iff distance < $THRESH, threshold fitted on validation pairs; chance 0.5)"
