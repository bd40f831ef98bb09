#!/usr/bin/env bash
# Logistic regression and a 2-layer net on a nonlinear 2-class problem read
# from HDF5, end to end. From the repository root:
#   bash examples/hdf5_classification/run.sh
# BUILD_DIR  build directory with the tools (default: build)
# PYTHON     a python3 with numpy and h5py (default: /usr/bin/python3)
set -eu
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
PYTHON="${PYTHON:-/usr/bin/python3}"
EX=examples/hdf5_classification
CAFFE="$BUILD_DIR/tools/caffe"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}"
[ -x "$CAFFE" ] || { echo "$CAFFE not found: build first (or set BUILD_DIR)" >&2; exit 1; }

mkdir -p "$EX/data"
echo "== Making the data set"
"$PYTHON" "$EX/make_data.py" "$EX/data"

declare -A ACC
for net in logreg nonlinear; do
    echo "== Training $net (log: $EX/data/$net.log)"
    "$CAFFE" train --solver="$EX/${net}_solver.prototxt" > "$EX/data/$net.log" 2>&1 ||
        { echo "training failed, see $EX/data/$net.log" >&2; exit 1; }
    grep -E "Iteration [0-9]+, Testing|accuracy =" "$EX/data/$net.log" |
        sed -n 's/.*\(Iteration [0-9]*\), Testing.*/\1:/p; s/.*\(accuracy = .*\)/test \1/p' |
        paste -d' ' - -
    ACC[$net]="$(sed -n 's/.*Test net output #0: accuracy = \([0-9.]*\).*/\1/p' "$EX/data/$net.log" | tail -n1)"
done
echo "HDF5 two-moons classification (2500 test points): logistic regression test accuracy ${ACC[logreg]}, 2-layer net (40 ReLU units) test accuracy ${ACC[nonlinear]}"
