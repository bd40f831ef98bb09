#!/usr/bin/env bash
# Train LeNet on Fashion-MNIST (run create_fashion_mnist.sh first).
set -eu
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}"
exec "${BUILD:-build}/tools/caffe" train \
    --solver=examples/fashion_mnist/lenet_solver.prototxt "$@"
