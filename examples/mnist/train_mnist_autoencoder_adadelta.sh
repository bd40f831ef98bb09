#!/usr/bin/env sh
# Trains with examples/mnist/mnist_autoencoder_solver_adadelta.prototxt (run from the Caffe root, after
# create_mnist.sh); extra arguments go to `caffe train`.
set -e

./build/tools/caffe train --solver=examples/mnist/mnist_autoencoder_solver_adadelta.prototxt "$@"
