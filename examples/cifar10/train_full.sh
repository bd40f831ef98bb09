#!/usr/bin/env sh
# CIFAR-10 full: 60000 iterations, then 5000 at base_lr / 10 and 5000 at
# base_lr / 100, each stage resuming from the last one's HDF5 snapshot (run
# from the Caffe root, after create_cifar10.sh).
set -e

TOOLS=./build/tools

$TOOLS/caffe train \
  --solver=examples/cifar10/cifar10_full_solver.prototxt "$@"

# reduce learning rate by factor of 10
$TOOLS/caffe train \
  --solver=examples/cifar10/cifar10_full_solver_lr1.prototxt \
  --snapshot=examples/cifar10/cifar10_full_iter_60000.solverstate.h5 "$@"

# reduce learning rate by factor of 10
$TOOLS/caffe train \
  --solver=examples/cifar10/cifar10_full_solver_lr2.prototxt \
  --snapshot=examples/cifar10/cifar10_full_iter_65000.solverstate.h5 "$@"
