#!/usr/bin/env sh
# CIFAR-10 quick: 4000 iterations, then 1000 more at a tenth of the rate
# from the HDF5 snapshot (run from the Caffe root, after create_cifar10.sh).
set -e

TOOLS=./build/tools

$TOOLS/caffe train --solver=examples/cifar10/cifar10_quick_solver.prototxt "$@"

# reduce learning rate by factor of 10 after 4000 iterations
$TOOLS/caffe train \
  --solver=examples/cifar10/cifar10_quick_solver_lr1.prototxt \
  --snapshot=examples/cifar10/cifar10_quick_iter_4000.solverstate.h5 "$@"
