#!/usr/bin/env sh
# Converts the MNIST idx files in data/mnist (train-images-idx3-ubyte,
# train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte,
# plain or .gz) into examples/mnist/mnist_{train,test}_${BACKEND}, as
# Caffe's script of the same name.  Run from the Caffe root.  Without
# network access, Debian's dataset-fashion-mnist package provides files of
# the same format: DATA=/usr/share/datasets/fashion-mnist.
set -e

EXAMPLE=examples/mnist
DATA=${DATA:-data/mnist}
BUILD=build/tools
BACKEND=${BACKEND:-lmdb}

find_file() {
  for f in "$DATA/$1" "$DATA/$1.gz"; do
    if [ -f "$f" ]; then echo "$f"; return; fi
  done
  echo "create_mnist.sh: $DATA/$1 not found (see the comment at the top)" >&2
  exit 1
}

echo "Creating ${BACKEND}..."
rm -rf $EXAMPLE/mnist_train_${BACKEND} $EXAMPLE/mnist_test_${BACKEND}
$BUILD/convert_mnist_data "$(find_file train-images-idx3-ubyte)" \
  "$(find_file train-labels-idx1-ubyte)" $EXAMPLE/mnist_train_${BACKEND} \
  --backend=${BACKEND}
$BUILD/convert_mnist_data "$(find_file t10k-images-idx3-ubyte)" \
  "$(find_file t10k-labels-idx1-ubyte)" $EXAMPLE/mnist_test_${BACKEND} \
  --backend=${BACKEND}
echo "Done."
