#!/usr/bin/env bash
# A small conv net on PNG images of shapes read through ImageData layers,
# end to end. From the repository root:
#   bash examples/imagedata/run.sh
# BUILD_DIR  build directory with the tools (default: build)
# PYTHON     a python3 with numpy (default: /usr/bin/python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
PYTHON="${PYTHON:-/usr/bin/python3}"
EX=examples/imagedata
CAFFE="$BUILD_DIR/tools/caffe"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}"
[ -x "$CAFFE" ] || { echo "$CAFFE not found: build first (or set BUILD_DIR)" >&2; exit 1; }

echo "== Drawing the shape images"
rm -rf "$EX/data/images"
mkdir -p "$EX/data"
"$PYTHON" "$EX/make_shapes.py" "$EX/data"

echo "== Training (log: $EX/data/train.log)"
"$CAFFE" train --solver="$EX/shapes_solver.prototxt" 2>&1 | tee "$EX/data/train.log" |
    { grep -E "Iteration [0-9]+ .*loss =|Test net output" || true; } ||
    { echo "training failed, see $EX/data/train.log" >&2; exit 1; }

ACC="$(sed -n 's/.*Test net output #0: accuracy = \([0-9.]*\).*/\1/p' "$EX/data/train.log" | tail -n1)"
ITER="$(sed -n 's/.*Iteration \([0-9]*\), Testing net.*/\1/p' "$EX/data/train.log" | tail -n1)"
echo "ImageData shapes (circle/square/triangle, 600 test PNGs): test accuracy $ACC after $ITER iterations (chance 0.333)"
