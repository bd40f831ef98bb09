#!/usr/bin/env bash
# Convert Fashion-MNIST (idx files, plain or .gz) into the two LMDBs that
# lenet_train_test.prototxt reads. Run from anywhere after building.
#   DATA  directory with the four idx files
#         (default: Debian's dataset-fashion-mnist, /usr/share/datasets/fashion-mnist)
#   BUILD build directory (default: build)
set -eu
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
DATA="${DATA:-/usr/share/datasets/fashion-mnist}"
BUILD="${BUILD:-build}"
EXAMPLE=examples/fashion_mnist
CONVERT="$BUILD/tools/convert_mnist_data"

if [ ! -d "$DATA" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's dataset-fashion-mnist ..."
    apt-get install -y dataset-fashion-mnist || { apt-get update && apt-get install -y dataset-fashion-mnist; }
fi

find_idx() {   # $1 = base name without .gz
    if [ -f "$DATA/$1" ]; then echo "$DATA/$1"
    elif [ -f "$DATA/$1.gz" ]; then echo "$DATA/$1.gz"
    else echo "missing $DATA/$1[.gz] (set DATA=...)" >&2; exit 1
    fi
}

[ -x "$CONVERT" ] || { echo "$CONVERT not found: build first" >&2; exit 1; }

train_images="$(find_idx train-images-idx3-ubyte)"
train_labels="$(find_idx train-labels-idx1-ubyte)"
test_images="$(find_idx t10k-images-idx3-ubyte)"
test_labels="$(find_idx t10k-labels-idx1-ubyte)"

rm -rf "$EXAMPLE/fashion_train_lmdb" "$EXAMPLE/fashion_test_lmdb"
"$CONVERT" --backend=lmdb "$train_images" "$train_labels" "$EXAMPLE/fashion_train_lmdb"
"$CONVERT" --backend=lmdb "$test_images" "$test_labels" "$EXAMPLE/fashion_test_lmdb"
echo "Done: $EXAMPLE/fashion_train_lmdb (60000), $EXAMPLE/fashion_test_lmdb (10000)"
